package state

import (
	"github.com/ostset/ostset/engine/plan"
)

// What the state adds to a plan's status: the failures it recorded and the
// removals in flight.

// ExplainPending gives each pending replica the reason its last create or
// start failed for good, if one is recorded.
func (st *State) ExplainPending(s *plan.Status) {
	for i, r := range s.Pending {
		if f, ok := st.Failures[r.Name]; ok {
			s.Pending[i].Reason, s.Pending[i].Failed = "cannot start: "+f.Reason, true
			s.Pending[i].FailedAt, s.Pending[i].RetryAt = f.At, f.Retry
		}
	}
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
