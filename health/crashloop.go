package health

import "time"

// Crash-loop back-off, as Kubernetes' CrashLoopBackOff: the first recreation
// of a failed replica is immediate, then each one waits twice as long after the
// one before, from crashBackoff up to crashBackoffMax. The count starts again
// only once the replica has been seen ready for crashBackoffReset. The engine
// keeps a CrashLoop per ordinal in the set's state, so a new process (another
// up, a restarted daemon) honours the back-off instead of recreating a
// crashing replica at once.
const (
	crashBackoff      = 10 * time.Second
	crashBackoffMax   = 5 * time.Minute
	crashBackoffReset = 10 * time.Minute
)

// CrashLoop is the back-off of one ordinal whose replica keeps exiting.
type CrashLoop struct {
	// Count is how many times the ordinal's replica (or one of its init
	// containers) failed and was recreated since the count last started.
	Count int       `json:"count"`
	After time.Time `json:"after"` // no recreation before
	// ReadySince is when a pass first saw the replica made at the last
	// recreation ready, and ready at every pass since; zero if not.
	ReadySince time.Time `json:"readySince,omitzero"`
	// Revision is the revision the ordinal's replica is recreated at: the
	// back-off is this revision's, and a replica made at another one starts
	// afresh (see Failed). Empty in records made before it was kept.
	Revision string `json:"revision,omitempty"`
	// Restarting: the ordinal's exited (or cut-off) replica was removed to be
	// brought back and its successor is not seen yet.
	Restarting bool `json:"restarting,omitempty"`
}

// Seen notes whether the ordinal's replica is ready at now. over is true once
// it has been ready for crashBackoffReset: the loop is over, and the count
// starts again at the next failure.
func (c CrashLoop) Seen(ready bool, now time.Time) (_ CrashLoop, over bool) {
	switch {
	case !ready:
		c.ReadySince = time.Time{}
	case c.ReadySince.IsZero():
		c.ReadySince = now
	case now.Sub(c.ReadySince) >= crashBackoffReset:
		return CrashLoop{}, true
	}
	return c, false
}

// Recreated is the loop after one more recreation of a failed replica at now.
func (c CrashLoop) Recreated(now time.Time) CrashLoop {
	return CrashLoop{Count: c.Count + 1, After: now.Add(crashDelay(c.Count)), Revision: c.Revision, Restarting: c.Restarting}
}

// Failed is the loop after a failure of a replica (or init container) at
// revision failed, recreated (or run again) at revision next, at now. The
// back-off belongs to a revision, as a new pod in Kubernetes starts a fresh
// CrashLoopBackOff: a failure at the revision the loop counts adds to it;
// a loop of another revision is over (a fixed template, a rollback); and a
// replica of another revision than next failing (its successor is the first
// of next) holds nothing back.
func (c CrashLoop) Failed(failed, next string, now time.Time) CrashLoop {
	restarting := c.Restarting
	if c.Revision != next && c.Revision != "" {
		c = CrashLoop{}
	}
	if failed != next {
		return CrashLoop{Revision: next, Restarting: restarting}
	}
	c = c.Recreated(now)
	c.Revision, c.Restarting = next, restarting
	return c
}

// crashDelay is the back-off after the n-th recreation in a row (0-based).
func crashDelay(n int) time.Duration {
	if n >= 5 { // 10 s << 5 is past the cap already; a larger shift could overflow
		return crashBackoffMax
	}
	return min(crashBackoff<<n, crashBackoffMax)
}
