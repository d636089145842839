package state

import (
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// RememberReadiness replaces each ready replica's ReadySince by the earliest time
// remembered for its container while it stayed ready, remembers new ones, and
// forgets containers that are gone or no longer ready (health.Remember).
func (st *State) RememberReadiness(rs []plan.Replica) {
	ready := make(map[string]time.Time, len(rs))
	for _, r := range rs {
		if !r.ReadySince.IsZero() {
			ready[r.ID] = r.ReadySince
		}
	}
	st.ReadySince = health.Remember(st.ReadySince, ready)
	for i := range rs {
		if t, ok := ready[rs[i].ID]; ok {
			rs[i].ReadySince = t
		}
	}
}

// Saw takes in a pass's observation: the readiness it shows (see
// RememberReadiness), the records of condemned volumes it settles (see
// plan.SettleCondemned), the revisions it keeps (see TrimHistory), the
// failures of replicas that exist now or are no longer wanted (see
// forgetFailures) and the containers a stopped set keeps (see noteStopped).
func (st *State) Saw(obs plan.Observed) {
	st.RememberReadiness(obs.Replicas)
	st.settleCondemnedVolumes(obs)
	st.TrimHistory(obs)
	st.forgetFailures(obs.Replicas)
	st.noteStopped(obs.Replicas)
}
