package state

import (
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// CrashLoop is the back-off of one ordinal whose replica keeps exiting (the
// rule is health's), kept in the set's state.
type CrashLoop = health.CrashLoop

// crashBackoff notes which ordinals' replicas are ready at now, forgets those
// ready for crashBackoffReset, and returns the recreation times of the others.
func (st *State) crashBackoff(replicas []plan.Replica, now time.Time) map[int]time.Time {
	for _, r := range replicas {
		c, ok := st.CrashLoops[r.Ordinal]
		if !ok {
			continue
		}
		ready := health.Ready(health.Container{State: r.State, Health: r.Health})
		if c, over := c.Seen(ready, now); over {
			delete(st.CrashLoops, r.Ordinal)
		} else {
			st.CrashLoops[r.Ordinal] = c
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

// CrashLoopStatus adds to the replicas in back-off how many times in a row
// they were recreated.
func (st *State) CrashLoopStatus(s *plan.Status) {
	for i := range s.Containers {
		if cs := s.Containers[i].CrashLoop; cs != nil {
			cs.Recreations = st.CrashLoops[s.Containers[i].Ordinal].Count
		}
	}
}

// NoteCrashes records the failed replicas a plan recreates.
func (st *State) NoteCrashes(actions []plan.Action, now time.Time) {
	for _, a := range actions {
		if !a.Failed {
			continue
		}
		if st.CrashLoops == nil {
			st.CrashLoops = map[int]CrashLoop{}
		}
		st.CrashLoops[a.Ordinal] = st.CrashLoops[a.Ordinal].Recreated(now)
	}
}
