package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A running daemon holds an flock on <state-dir>/daemon.lock for its whole life
// and writes its pid into it. The CLI reads that to know whether anything will
// keep its sets converged once it exits; a second daemon on the same state
// directory is refused.

// ErrDaemonRunning is returned by HoldDaemon when another daemon holds the state directory.
var ErrDaemonRunning = errors.New("a daemon already runs on this state directory")

func (s Store) daemonFile() string { return filepath.Join(s.Dir, "daemon.lock") }

// HoldDaemon marks this process as the state directory's daemon until release
// is called or the process ends.
func (s Store) HoldDaemon() (release func(), err error) {
	if err := s.secure(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.daemonFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := lockFile(f, true, false); err != nil {
		pid := readPid(f)
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%w (pid %d, %s)", ErrDaemonRunning, pid, s.Dir)
		}
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	release = func() {
		_ = f.Truncate(0)
		_ = f.Close()
	}
	if err := writePid(f); err != nil {
		if full := s.writeFailed("daemon lock: write pid", err); IsStateDirFull(full) {
			// The daemon runs, holding the lock, and says so: commands see
			// the lock held with no pid and drive sets themselves, the
			// set locks keeping their passes apart, as while a daemon
			// starts. A full state directory stops no daemon.
			return release, &PidUnwrittenError{Err: full}
		}
		_ = f.Close() // unlocks: a daemon the CLI cannot see must not run
		return nil, fmt.Errorf("daemon lock: write pid: %w (%s)", err, s.daemonFile())
	}
	return release, nil
}

// PidUnwrittenError is HoldDaemon's word that it holds the daemon lock but
// could not record the daemon's pid for lack of space: the daemon may run,
// and should say so.
type PidUnwrittenError struct{ Err error }

func (e *PidUnwrittenError) Error() string {
	return e.Err.Error() + ": commands will not see the daemon and drive the sets themselves until it is restarted with space"
}

func (e *PidUnwrittenError) Unwrap() error { return e.Err }

// DaemonRunning says whether a daemon holds the state directory, and its pid.
// It takes no lock that a daemon could wait for.
func (s Store) DaemonRunning() (pid int, running bool) {
	f, err := os.Open(s.daemonFile())
	if err != nil {
		return 0, false
	}
	defer func() { _ = f.Close() }()
	// A shared flock succeeds only when no daemon holds the exclusive one.
	if err := lockFile(f, false, false); err == nil {
		_ = unlockFile(f)
		return 0, false
	}
	// Locked with no pid: the daemon is starting or, more likely, releasing
	// (it empties the file before it unlocks). Either way it does not drive
	// the sets yet or any more; the set locks keep a command that drives one
	// meanwhile from overlapping its passes.
	pid = readPid(f)
	return pid, pid != 0
}

func readPid(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}
