package state

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// What the state adds to a plan's status: the failures it recorded and the
// removals in flight.

// ExplainPending gives each pending replica the reason its last create or
// start failed for good, if one is recorded; under Recreate, that replicas of
// older revisions are still to go.
func (st *State) ExplainPending(s *plan.Status) {
	old := oldRevisionReplicas(*s)
	for i, r := range s.Pending {
		if st.Spec.UpdateStrategy.Type == config.Recreate && old > 0 && !st.Paused {
			s.Pending[i].Reason = fmt.Sprintf("waits for %d replicas of older revisions to be removed (Recreate)", old)
		}
		if f, ok := st.Failures[r.Name]; ok {
			s.Pending[i].Reason, s.Pending[i].Failed = "cannot start: "+f.Reason, true
			s.Pending[i].FailedAt, s.Pending[i].RetryAt = f.At, f.Retry
		}
	}
}

// oldRevisionReplicas counts the replicas of s at a revision other than the
// update revision.
func oldRevisionReplicas(s plan.Status) int {
	n := 0
	for _, c := range s.Containers {
		if c.Revision != s.UpdateRevision {
			n++
		}
	}
	return n
}

// MarkRemovals marks the containers of s that st.Removing (by full container
// ID) records as being removed.
func (st *State) MarkRemovals(s *plan.Status, replicas []plan.Replica) {
	for _, r := range replicas {
		at, ok := st.Removing[r.ID]
		if !ok {
			continue
		}
		for i := range s.Containers {
			if s.Containers[i].Name == r.Name && s.Containers[i].ID == plan.ShortID(r.ID) {
				s.Containers[i].RemovalPending = &at
			}
		}
	}
}
