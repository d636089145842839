package state

import (
	"slices"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// RecordRemovals notes in st the replicas the actions remove (see
// State.Removing), and reports whether it noted any. Removing an init container needs no removal record: a replica's
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
	return recorded
}

// Condemn records the ordinals whose volumes go with their replica as a
// pass's plan leaves them (Plan.CondemnedVolumes), and reports whether they
// changed: recorded before the plan's removals, so that a replica removed
// from then on, by the pass or otherwise, takes its volumes along.
func (st *State) Condemn(ordinals []int) bool {
	if slices.Equal(st.CondemnedVolumes, ordinals) {
		return false
	}
	st.CondemnedVolumes = slices.Clone(ordinals)
	return true
}

// settleCondemnedVolumes drops the records of State.CondemnedVolumes that are
// settled (see SettleCondemned).
func (st *State) settleCondemnedVolumes(obs plan.Observed) {
	st.CondemnedVolumes = plan.SettleCondemned(st.Spec, st.CondemnedVolumes, obs)
}
