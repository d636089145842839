package state

import (
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// Failure is the last permanent error of a replica's create or start.
type Failure struct {
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"` // the first failure with this reason
	At     time.Time `json:"at"`    // the last one
}

// NoteFailures records the permanent failures of a pass's actions in
// st.Failures, and forgets the failure of a replica created or started now.
// err is the error of the actions, failed the reasons of its permanent
// failures by container name.
func (st *State) NoteFailures(actions []plan.Action, err error, failed map[string]string, now time.Time) {
	for _, a := range actions {
		if a.Kind != plan.ActCreate && a.Kind != plan.ActStart && a.Kind != plan.ActCreateInit {
			continue
		}
		name := plan.ReplicaName(st.Spec.Name, a.Ordinal)
		reason, ok := failed[a.Name]
		switch {
		case ok:
			f := st.Failures[name]
			if f.Reason != reason {
				f = Failure{Reason: reason, Since: now}
			}
			f.At = now
			if st.Failures == nil {
				st.Failures = map[string]Failure{}
			}
			st.Failures[name] = f
		case err == nil || !failedAction(err, a.Name):
			delete(st.Failures, name)
		}
	}
	if len(st.Failures) == 0 {
		st.Failures = nil
	}
}

// failedAction reports whether err names the container name at all (a failure
// that is not permanent keeps the recorded reason: it says nothing new).
func failedAction(err error, name string) bool {
	return strings.Contains(err.Error(), name)
}

// forgetFailures drops the recorded failures of replicas that exist now
// (created by another process, or by hand) and of ordinals outside the set's
// range (scaled away): they say nothing about the set any more.
func (st *State) forgetFailures(replicas []plan.Replica) {
	for name := range st.Failures {
		exists := slices.ContainsFunc(replicas, func(r plan.Replica) bool { return r.Name == name })
		wanted := false
		for ord := st.Spec.FirstOrdinal(); ord < st.Spec.EndOrdinal() && !wanted; ord++ {
			wanted = plan.ReplicaName(st.Spec.Name, ord) == name
		}
		if exists || !wanted {
			delete(st.Failures, name)
		}
	}
	if len(st.Failures) == 0 {
		st.Failures = nil
	}
}
