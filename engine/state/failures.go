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
	// Count is how many times in a row it failed with this reason, and
	// Retry when it is tried again: until then the planner holds back that
	// replica alone (Input.Refused), not the set's other replicas.
	Count int       `json:"count,omitempty"`
	Retry time.Time `json:"retry,omitzero"`
}

// Retrying a replica the engine refused for good: 0.5 s after the first
// failure, doubling up to a minute (a person may free the port meanwhile).
const (
	refusedRetry    = 500 * time.Millisecond
	refusedRetryMax = time.Minute
)

// refusedDelay is the wait before the next try after n failures in a row.
func refusedDelay(n int) time.Duration {
	if n > 8 { // 0.5 s << 7 is past the cap already
		return refusedRetryMax
	}
	return min(refusedRetry<<max(n-1, 0), refusedRetryMax)
}

// refused is the hold of each ordinal whose create or start the engine
// refused for good (see Failure.Retry), for the planner.
func (st *State) refused() map[int]plan.Refusal {
	var out map[int]plan.Refusal
	for name, f := range st.Failures {
		ord, ok := plan.ParseReplicaName(st.Spec.Name, name)
		if !ok || f.Retry.IsZero() {
			continue
		}
		if out == nil {
			out = map[int]plan.Refusal{}
		}
		out[ord] = plan.Refusal{Reason: f.Reason, RetryAt: f.Retry}
	}
	return out
}

// RetryRefused has the replicas the engine refused tried at the next pass: a
// new command comes after a person changed something (freed the port). It
// reports whether there was any hold to end.
func (st *State) RetryRefused() bool {
	changed := false
	for name, f := range st.Failures {
		if !f.Retry.IsZero() {
			f.Retry = time.Time{}
			st.Failures[name] = f
			changed = true
		}
	}
	return changed
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
			f.Count++
			f.Retry = now.Add(refusedDelay(f.Count))
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
