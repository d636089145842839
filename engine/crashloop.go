package engine

import "time"

// Crash-loop back-off: the first recreation of a failed replica is immediate,
// then each one waits twice as long, from crashBackoff up to crashBackoffMax,
// until the replica is seen ready again (as Kubernetes' CrashLoopBackOff). It is
// kept in the set's state, so a new process (another up, a restarted daemon)
// honours the back-off instead of recreating a crashing replica at once.
const (
	crashBackoff    = 10 * time.Second
	crashBackoffMax = 5 * time.Minute
)

// CrashLoop is the back-off of one ordinal whose replica keeps exiting.
type CrashLoop struct {
	Count int       `json:"count"`
	After time.Time `json:"after"` // no recreation before
}

// crashBackoff forgets ordinals whose replica is ready again and returns the
// recreation times still held back.
func (st *State) crashBackoff(replicas []Replica) map[int]time.Time {
	for _, r := range replicas {
		if r.State == StateRunning && (r.Health == HealthNone || r.Health == HealthHealthy) {
			delete(st.CrashLoops, r.Ordinal)
		}
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
		c.After = now.Add(min(crashBackoff<<c.Count, crashBackoffMax))
		c.Count++
		st.CrashLoops[a.Ordinal] = c
	}
}
