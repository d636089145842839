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
// ready for crashBackoffReset, and returns the back-off of each ordinal. An
// ordinal with a replica again is no longer restarting; the back-off of an
// ordinal outside the set's range is forgotten (scaled away: a replica
// scaled back in later starts afresh, as a new pod).
func (st *State) crashBackoff(replicas []plan.Replica, now time.Time) map[int]plan.Backoff {
	for ord := range st.CrashLoops {
		if ord < st.Spec.FirstOrdinal() || ord >= st.Spec.EndOrdinal() {
			delete(st.CrashLoops, ord)
		}
	}
	for _, r := range replicas {
		c, ok := st.CrashLoops[r.Ordinal]
		if !ok {
			continue
		}
		c.Restarting = false
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
	out := make(map[int]plan.Backoff, len(st.CrashLoops))
	for ord, c := range st.CrashLoops {
		out[ord] = plan.Backoff{After: c.After, Revision: c.Revision, Restarting: c.Restarting}
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

// NoteCrashes records the failed replicas a plan recreates, and the failed
// init containers it runs again, each for the revision its successor runs.
// An ordinal whose exited (or cut-off) replica it removes is restarting until
// a pass sees its successor.
func (st *State) NoteCrashes(actions []plan.Action, now time.Time) {
	for _, a := range actions {
		if a.Kind == plan.ActDelete && !a.Failed && a.Successor != "" {
			// Cut off from its network: restarting, with no crash to count.
			if st.CrashLoops == nil {
				st.CrashLoops = map[int]CrashLoop{}
			}
			c := st.CrashLoops[a.Ordinal]
			c.Restarting = true
			st.CrashLoops[a.Ordinal] = c
			continue
		}
		if !a.Failed {
			continue
		}
		if st.CrashLoops == nil {
			st.CrashLoops = map[int]CrashLoop{}
		}
		next := a.Revision // an init container's: its ordinal is created at it
		if a.Kind == plan.ActDelete {
			next = a.Successor
		}
		c := st.CrashLoops[a.Ordinal].Failed(a.Revision, next, now)
		if a.Kind == plan.ActDelete {
			c.Restarting = true
		}
		st.CrashLoops[a.Ordinal] = c
	}
}
