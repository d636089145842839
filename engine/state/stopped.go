package state

import (
	"fmt"
	"slices"

	"github.com/ostset/ostset/engine/plan"
)

// Stop records that the set is stopped (ostset stop): the passes of every
// process, the daemon's too, stop its replicas and keep them stopped (see
// engine/plan's stopped rule) until Start. It reports whether it changed
// anything.
func (st *State) Stop() bool {
	if st.Stopped {
		return false
	}
	st.Stopped = true
	st.Generation++
	return true
}

// Start records that a stopped set is started again (ostset start, or ostset
// up): the containers it kept stopped (StoppedIDs) are started, in the
// order of its pod management policy, and the set is then driven as usual.
// It reports whether the set was stopped.
func (st *State) Start() bool {
	if !st.Stopped {
		return false
	}
	st.Stopped = false
	st.Generation++
	return true
}

// RefuseStopped is the error of a command that changes a stopped set
// (scale, rollout restart, undo, partition, pause, resume): it would change
// nothing a user could see until the set is started, so it is refused.
func (st *State) RefuseStopped() error {
	if !st.Stopped {
		return nil
	}
	return fmt.Errorf("set %s is stopped (ostset stop): run 'ostset start %s' first", st.Spec.Name, st.Spec.Name)
}

// noteStopped keeps StoppedIDs as a pass observed the set: while it is
// stopped, every replica container it has (the running ones are about to
// be stopped); once started, those not yet started again (a replica that
// runs, or is gone, is dropped).
func (st *State) noteStopped(replicas []plan.Replica) {
	var ids []string
	for _, r := range replicas {
		if st.Stopped || r.State != plan.StateRunning && slices.Contains(st.StoppedIDs, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	st.StoppedIDs = ids
}
