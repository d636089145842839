package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/state"
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

// permanentReasons is the reason of each permanent error in err, by the
// container name it is about.
func permanentReasons(err error) map[string]string {
	failed := map[string]string{}
	for _, pe := range permanentFailures(err) {
		failed[pe.Replica] = pe.Error()
	}
	return failed
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

// failedSince is the *FailedError of the permanent failures that a pass (of
// any process) recorded in st since the time a wait began; nil if none.
func failedSince(name string, st state.State, since time.Time) error {
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
