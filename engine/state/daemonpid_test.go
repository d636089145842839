package state

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A daemon whose pid cannot be written for lack of space holds the lock and
// is told so (PidUnwrittenError: it runs and says why commands do not see
// it); a pid write that fails otherwise fails HoldDaemon and lets the lock
// go, so that no daemon runs unseen and the next one can take it.
func TestHoldDaemonWhenThePidIsNotWritten(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	orig := writePid
	defer func() { writePid = orig }()

	writePid = func(*os.File) error { return syscall.ENOSPC }
	release, err := s.HoldDaemon()
	unwritten := (*PidUnwrittenError)(nil)
	if !errors.As(err, &unwritten) || !IsStateDirFull(err) || release == nil {
		t.Fatalf("HoldDaemon on a full disk: %v, want the lock held and a PidUnwrittenError", err)
	}
	writePid = orig
	if _, err := s.HoldDaemon(); !errors.Is(err, ErrDaemonRunning) {
		t.Errorf("a second daemon beside the one on a full disk: %v, want ErrDaemonRunning", err)
	}
	release()

	writePid = func(*os.File) error { return syscall.EIO }
	release, err = s.HoldDaemon()
	if err == nil || errors.As(err, &unwritten) {
		if release != nil {
			release()
		}
		t.Fatalf("HoldDaemon with a failed pid write: %v, want a failure", err)
	}
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "write pid") {
		t.Errorf("error %v, want the failed pid write", err)
	}
	writePid = orig
	if _, running := s.DaemonRunning(); running {
		t.Error("a daemon is reported after HoldDaemon failed")
	}
	release, err = s.HoldDaemon()
	if err != nil {
		t.Fatalf("the lock was kept after the failure: %v", err)
	}
	release()
}
