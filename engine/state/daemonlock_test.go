package state

import (
	"errors"
	"os"
	"testing"
)

func TestDaemonLock(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if _, running := s.DaemonRunning(); running {
		t.Fatal("a daemon is reported before any ran")
	}
	release, err := s.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	if pid, running := s.DaemonRunning(); !running || pid != os.Getpid() {
		t.Fatalf("DaemonRunning = %d, %v; want %d, true", pid, running, os.Getpid())
	}
	if _, err := s.HoldDaemon(); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("a second daemon: err = %v, want ErrDaemonRunning", err)
	}
	release()
	if _, running := s.DaemonRunning(); running {
		t.Fatal("a daemon is reported after it released the state directory")
	}
	release, err = s.HoldDaemon()
	if err != nil {
		t.Fatalf("a daemon after the first stopped: %v", err)
	}
	release()
}
