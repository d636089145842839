package state

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A daemon whose pid cannot be written (a full disk) does not run unseen:
// HoldDaemon fails and lets the lock go, so the next daemon can take it.
func TestHoldDaemonFailsWhenThePidIsNotWritten(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	orig := writePid
	writePid = func(*os.File) error { return syscall.ENOSPC }
	release, err := s.HoldDaemon()
	writePid = orig
	if err == nil {
		release()
		t.Fatal("HoldDaemon succeeded without writing its pid")
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "write pid") {
		t.Errorf("error %v, want the failed pid write", err)
	}
	if _, running := s.DaemonRunning(); running {
		t.Error("a daemon is reported after HoldDaemon failed")
	}
	release, err = s.HoldDaemon()
	if err != nil {
		t.Fatalf("the lock was kept after the failure: %v", err)
	}
	release()
}
