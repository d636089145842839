package state

import (
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// RecordRemovals notes in st the replicas the actions remove (see
// State.Removing) and, under whenScaled: Delete, the ordinals a scale-down
// condemns (State.CondemnedVolumes, see Condemn), and reports whether it
// noted any. Removing an init container needs no removal record: a replica's
// init containers are all removed again before it is created. Nor does
// removing a replica that exited: it is sent no stop signal, and a pass that
// finds it still there removes it again.
func (st *State) RecordRemovals(actions []plan.Action, now time.Time) bool {
	recorded := false
	for _, a := range actions {
		if a.Kind == plan.ActDelete && !a.Failed { // an exited replica is sent no stop signal
			if st.Removing == nil {
				st.Removing = map[string]time.Time{}
			}
			st.Removing[a.ID], recorded = now, true
		}
	}
	condemned := false
	st.CondemnedVolumes, condemned = plan.Condemn(st.Spec, st.CondemnedVolumes, actions)
	return recorded || condemned
}

// settleCondemnedVolumes drops the records of State.CondemnedVolumes that are
// settled (see SettleCondemned).
func (st *State) settleCondemnedVolumes(obs plan.Observed) {
	st.CondemnedVolumes = plan.SettleCondemned(st.Spec, st.CondemnedVolumes, obs)
}
