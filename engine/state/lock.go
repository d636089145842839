package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Locks are flocks on locks/<name>.lock, handed over in arrival order.
//
// flock alone is not fair: a controller loop releases a set's lock after each
// pass and takes it again at once, so a waiter that polls for it rarely wins.
// Waiters therefore queue: each holds an flock on its own ticket file in
// locks/<name>.queue/ while it waits, the tickets are named by arrival time,
// and only the oldest live ticket may take the lock. A loop that wants the lock
// again after a pass queues behind whoever arrived meanwhile. A ticket whose
// process died is no longer flocked; the next waiter sees that and removes it.
//
// The holder writes who it is into the lock file, so that a waiter can say what
// it waits for.

// lockRetry is how often a waiter looks again: flock cannot wait on a context.
const lockRetry = 20 * time.Millisecond

// Lock takes the set's exclusive lock, waiting in turn until it is free or ctx ends.
func (s Store) Lock(ctx context.Context, name string) (unlock func(), err error) {
	return s.lock(ctx, filepath.Join(s.Dir, "locks"), name)
}

// LockNetwork takes the lock of a network name: sets share networks, and Docker
// at API < 1.44 creates a duplicate network for two concurrent creates.
func (s Store) LockNetwork(ctx context.Context, name string) (unlock func(), err error) {
	return s.lock(ctx, filepath.Join(s.Dir, "locks", "networks"), name)
}

func (s Store) lock(ctx context.Context, dir, name string) (unlock func(), err error) {
	if err := checkFileName(name); err != nil {
		return nil, fmt.Errorf("lock %w", err)
	}
	if err := s.secure(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	t, err := takeTicket(filepath.Join(dir, name+".queue"))
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	defer t.release()
	said := false
	for {
		if t.first() {
			err := lockFile(f, true, false)
			if err == nil {
				writeHolder(f)
				return func() {
					_ = f.Truncate(0)
					_ = f.Close() // closing the file releases the lock
				}, nil
			}
			if !errors.Is(err, errLocked) {
				_ = f.Close()
				return nil, fmt.Errorf("lock %s: %w", name, err)
			}
		}
		if !said && s.Waiting != nil {
			s.Waiting(fmt.Sprintf("%s: waiting for its lock, %s", name, holder(f)))
			said = true
		}
		select {
		case <-ctx.Done():
			err := fmt.Errorf("lock %s (%s): %w", name, holder(f), ctx.Err())
			_ = f.Close()
			return nil, err
		case <-time.After(lockRetry):
		}
	}
}

// writeHolder records in the lock file which process holds it.
func writeHolder(f *os.File) {
	desc := fmt.Sprintf("pid %d (%s, since %s)", os.Getpid(), commandLine(), time.Now().Format(time.TimeOnly))
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(desc), 0)
	}
}

// holder says who holds the lock, as the holder wrote it.
func holder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	if n == 0 {
		return "next in line: other waiters"
	}
	return "held by " + string(b[:n])
}

func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	s := strings.Join(args, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ticket is one waiter's place in a lock's queue.
type ticket struct {
	dir, name string
	f         *os.File
}

var ticketSeq atomic.Int64

// errLocked is lockFile's answer when it would have to wait.
var errLocked = errors.New("locked by another process")

// takeTicket joins the queue. The ticket is flocked under a hidden name first
// and then renamed into place, so no other waiter ever sees it unlocked while
// its owner lives. Where an open file cannot be renamed (Windows), it is made
// under its own name: there another waiter cannot remove it while it is open
// either, so one that finds it not yet locked leaves it in place.
func takeTicket(dir string) (*ticket, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%020d-%d-%d", time.Now().UnixNano(), os.Getpid(), ticketSeq.Add(1))
	first := "." + name
	if !renameOpenFiles {
		first = name
	}
	f, err := os.OpenFile(filepath.Join(dir, first), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, true, false); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	if !renameOpenFiles {
		return &ticket{dir: dir, name: name, f: f}, nil
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &ticket{dir: dir, name: name, f: f}, nil
}

// first reports whether no live ticket is ahead of this one, removing the
// tickets of processes that died while waiting.
func (t *ticket) first() bool {
	entries, err := os.ReadDir(t.dir) // sorted by name: by arrival
	if err != nil {
		return true // the queue is an optimisation; the flock still excludes
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case n == t.name:
			return true
		case strings.HasPrefix(n, "."):
		case abandoned(filepath.Join(t.dir, n)):
			_ = os.Remove(filepath.Join(t.dir, n))
		default:
			return false
		}
	}
	return true
}

// abandoned: nobody holds the ticket's flock, so its waiter is gone.
func abandoned(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	defer func() { _ = f.Close() }()
	return lockFile(f, false, false) == nil
}

func (t *ticket) release() {
	_ = os.Remove(filepath.Join(t.dir, t.name))
	_ = t.f.Close()
	if !renameOpenFiles {
		_ = os.Remove(filepath.Join(t.dir, t.name)) // now that it is closed
	}
}
