package plan

import (
	"fmt"
	"strings"
)

// UnfinishedDeleteError is a delete of a set (ostset down) that stopped before
// it finished: interrupted, or failed. Its intent stays recorded (State.Deleting),
// and any later pass finishes it, volumes included if the intent says so.
type UnfinishedDeleteError struct {
	Set    string
	Intent DeleteIntent
	// Volumes are the set's volumes when the delete began.
	Volumes []string
	Err     error
}

func (e *UnfinishedDeleteError) Error() string {
	what := "its volumes are kept"
	if e.Intent.Volumes {
		what = "its volumes are removed too"
		if len(e.Volumes) > 0 {
			what = "its volumes " + strings.Join(e.Volumes, ", ") + " are removed too"
		}
	}
	msg := fmt.Sprintf("%v; the delete of %s is recorded (%s): 'ostset down %s' finishes it, as does 'ostset reconcile %s' or a running daemon; 'ostset up -f FILE' cancels it and keeps what is left",
		e.Err, e.Set, what, e.Set, e.Set)
	if e.Intent.Volumes {
		msg += fmt.Sprintf(" (to delete the set but keep its volumes: cancel with 'ostset up', then 'ostset down %s')", e.Set)
	}
	return msg
}

func (e *UnfinishedDeleteError) Unwrap() error { return e.Err }

// ResumedDelete says, before anything is removed, that a delete recorded by an
// earlier ostset down is being finished, and what it does with the volumes.
func ResumedDelete(set string, intent DeleteIntent, vols []Volume) string {
	if !intent.Volumes {
		return fmt.Sprintf("finishing the delete of %s that an earlier 'ostset down' began; its volumes are kept", set)
	}
	what := "its volumes are removed too"
	if len(vols) > 0 {
		what = "its volumes " + strings.Join(VolumeNames(vols), ", ") + " are removed too"
	}
	return fmt.Sprintf("finishing the delete of %s that an earlier 'ostset down --volumes' (or whenDeleted: Delete) began: %s", set, what)
}

// VolumeNames are the names of vols.
func VolumeNames(vols []Volume) []string {
	names := make([]string, len(vols))
	for i, v := range vols {
		names[i] = v.Name
	}
	return names
}
