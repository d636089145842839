package engine

import "time"

// Crash-loop back-off, as Kubernetes' CrashLoopBackOff: the first recreation
// of a failed replica is immediate, then each one waits twice as long after the
// one before, from crashBackoff up to crashBackoffMax. The count starts again
// only once the replica has been seen ready for crashBackoffReset. It is kept
// in the set's state, so a new process (another up, a restarted daemon)
// honours the back-off instead of recreating a crashing replica at once.
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
}

// crashBackoff notes which ordinals' replicas are ready at now, forgets those
// ready for crashBackoffReset, and returns the recreation times of the others.
func (st *State) crashBackoff(replicas []Replica, now time.Time) map[int]time.Time {
	for _, r := range replicas {
		c, ok := st.CrashLoops[r.Ordinal]
		if !ok {
			continue
		}
		switch {
		case r.State != StateRunning || (r.Health != HealthNone && r.Health != HealthHealthy):
			c.ReadySince = time.Time{}
		case c.ReadySince.IsZero():
			c.ReadySince = now
		case now.Sub(c.ReadySince) >= crashBackoffReset:
			delete(st.CrashLoops, r.Ordinal)
			continue
		}
		st.CrashLoops[r.Ordinal] = c
	}
	if len(st.CrashLoops) == 0 {
		st.CrashLoops = nil
		return nil
	}
	out := make(map[int]time.Time, len(st.CrashLoops))
	for ord, c := range st.CrashLoops {
		out[ord] = c.After
	}
	return out
}

// crashLoopStatus adds to the replicas in back-off how many times in a row
// they were recreated.
func (st *State) crashLoopStatus(s *Status) {
	for i := range s.Containers {
		if cs := s.Containers[i].CrashLoop; cs != nil {
			cs.Recreations = st.CrashLoops[s.Containers[i].Ordinal].Count
		}
	}
}

// noteCrashes records the failed replicas a plan recreates.
func (st *State) noteCrashes(actions []Action, now time.Time) {
	for _, a := range actions {
		if !a.Failed {
			continue
		}
		if st.CrashLoops == nil {
			st.CrashLoops = map[int]CrashLoop{}
		}
		c := st.CrashLoops[a.Ordinal]
		st.CrashLoops[a.Ordinal] = CrashLoop{Count: c.Count + 1, After: now.Add(crashDelay(c.Count))}
	}
}

// crashDelay is the back-off after the n-th recreation in a row (0-based).
func crashDelay(n int) time.Duration {
	if n >= 5 { // 10 s << 5 is past the cap already; a larger shift could overflow
		return crashBackoffMax
	}
	return min(crashBackoff<<n, crashBackoffMax)
}
