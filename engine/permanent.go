package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// PermanentError is a runtime failure that trying again will not cure by
// itself: the engine refused the replica as it is specified (a host port
// another container holds, a bind source that does not exist, a limit above
// the engine's own). The runtime says which failures are permanent (it knows
// the engine's words); the engine only sees this type. A waiting command stops
// on it with the engine's words; the daemon keeps retrying with back-off,
// since the cause may be removed outside ostset (the port freed), and records
// the reason.
type PermanentError struct {
	// Replica is the container the failure is about.
	Replica string
	// Err is the engine's error.
	Err error
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is, or wraps, a *PermanentError.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

// permanentFailures lists the permanent errors in err (joined or wrapped).
func permanentFailures(err error) []*PermanentError {
	var out []*PermanentError
	var walk func(error)
	walk = func(err error) {
		if pe := (*PermanentError)(nil); errors.As(err, &pe) {
			out = append(out, pe)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

// FailedError ends a wait whose set cannot progress without a change by a
// person: a replica the engine refuses to create or start for a reason that a
// retry does not cure (see PermanentError).
type FailedError struct {
	Set      string
	Failures []*PermanentError
}

func (e *FailedError) Error() string {
	msgs := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		msgs[i] = f.Error()
	}
	return fmt.Sprintf("cannot progress: %s", strings.Join(msgs, "; "))
}

func (e *FailedError) Unwrap() []error {
	out := make([]error, len(e.Failures))
	for i, f := range e.Failures {
		out[i] = f
	}
	return out
}

// Failure is the last permanent error of a replica's create or start.
type Failure struct {
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"` // the first failure with this reason
	At     time.Time `json:"at"`    // the last one
}

// noteFailures records the permanent failures of a pass's actions in
// st.Failures, and forgets the failure of a replica created or started now.
func (st *State) noteFailures(actions []Action, err error, now time.Time) {
	failed := map[string]string{}
	for _, pe := range permanentFailures(err) {
		failed[pe.Replica] = pe.Error()
	}
	for _, a := range actions {
		if a.Kind != ActCreate && a.Kind != ActStart && a.Kind != ActCreateInit {
			continue
		}
		name := ReplicaName(st.Spec.Name, a.Ordinal)
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

// failedSince is the *FailedError of the permanent failures that a pass (of
// any process) recorded in st since the time a wait began; nil if none.
func failedSince(name string, st State, since time.Time) error {
	var fs []*PermanentError
	for _, replica := range slices.Sorted(maps.Keys(st.Failures)) {
		if f := st.Failures[replica]; !f.At.Before(since) {
			fs = append(fs, &PermanentError{Replica: replica, Err: errors.New(f.Reason)})
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return &FailedError{Set: name, Failures: fs}
}

// forgetFailures drops the recorded failures of replicas that exist now
// (created by another process, or by hand) and of ordinals outside the set's
// range (scaled away): they say nothing about the set any more.
func (st *State) forgetFailures(replicas []Replica) {
	for name := range st.Failures {
		exists := slices.ContainsFunc(replicas, func(r Replica) bool { return r.Name == name })
		wanted := false
		for ord := st.Spec.FirstOrdinal(); ord < st.Spec.EndOrdinal() && !wanted; ord++ {
			wanted = ReplicaName(st.Spec.Name, ord) == name
		}
		if exists || !wanted {
			delete(st.Failures, name)
		}
	}
	if len(st.Failures) == 0 {
		st.Failures = nil
	}
}
