package state

import (
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// PlanInput is what the planner decides the set's next steps from: its spec
// and revisions as st holds them, the observation obs, and the crash-loop
// back-off, which notes at now which replicas of obs are ready (see
// crashBackoff).
func (st *State) PlanInput(obs plan.Observed, now time.Time) plan.Input {
	return plan.Input{
		Set:              st.Spec,
		CurrentRevision:  st.CurrentRevision,
		UpdateRevision:   st.UpdateRevision,
		Paused:           st.Paused,
		Observed:         obs,
		Now:              now,
		Backoff:          st.crashBackoff(obs.Replicas, now),
		InitContainers:   st.initNames(),
		Networks:         st.RevisionNetworks(),
		CondemnedVolumes: st.CondemnedVolumes,
		Refused:          st.refused(),
		Stopped:          st.Stopped,
		StoppedIDs:       st.StoppedIDs,
	}
}

// initNames lists, per revision of st, its init containers' names in order: the
// planner's view of the templates (Input.InitContainers).
func (st *State) initNames() map[string][]string {
	out := map[string][]string{}
	for _, r := range st.Revisions {
		if names := r.Spec.Template.InitNames(); len(names) > 0 {
			out[r.Name] = names
		}
	}
	return out
}

// RevisionNetworks are the networks of each revision in st's history, by
// revision name (see Input.Networks).
func (st *State) RevisionNetworks() map[string][]string {
	out := make(map[string][]string, len(st.Revisions))
	for _, r := range st.Revisions {
		out[r.Name] = r.Spec.NetworkNames()
	}
	return out
}
