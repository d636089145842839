package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/ostset/ostset/config"
)

// ApplyResult says what applying a set file did to the set's stored state.
type ApplyResult struct {
	State   State
	Created bool // the set was new
	Changed bool // the update revision changed
	// Notes say what was kept from commands, or cancelled, one line each.
	Notes []string
	// Warnings say what of the set's image loses data in silence: each VOLUME
	// it declares that no claim or mount covers.
	Warnings []string
}

// ImageIDs are a set's images resolved to local image IDs.
type ImageIDs struct {
	Main string
	// Init holds the init containers' image IDs by init container name.
	Init map[string]string
}

// Apply makes s, with its images resolved to ids, the desired spec and its
// template the update revision. Values that commands set (Overrides) are kept
// where the file leaves the field out, and dropped where the file sets it, as
// kubectl apply keeps what a file does not mention. Applying cancels a delete
// that ostset down left unfinished: the user asked for the set to be up.
// A stored set of another compose project, or of set files for a compose
// project's set and the other way round, is refused (CheckOwner).
func (st *State) Apply(s config.Set, ids ImageIDs, cause string, now time.Time, exists bool) (ApplyResult, error) {
	res := ApplyResult{Created: !exists}
	if exists {
		if err := CheckOwner(st.Spec, s, false); err != nil {
			return res, err
		}
	}
	if !exists {
		st.Created = now
	}
	if st.Deleting != nil {
		st.Deleting = nil
		res.Notes = append(res.Notes, fmt.Sprintf("cancelled the unfinished delete of %s (ostset down): its remaining replicas and volumes are kept and the set is brought back; run 'ostset down %s' to delete it instead", s.Name, s.Name))
	}
	if st.Start() {
		res.Notes = append(res.Notes, fmt.Sprintf("%s was stopped (ostset stop): starting it, as docker compose up does", s.Name))
	}
	res.Notes = append(res.Notes, st.keepOverrides(&s)...)
	if err := s.Validate(); err != nil {
		return res, fmt.Errorf("%s: with the values kept from commands: %w", s.Source, err)
	}
	restartedAt := ""
	if cur, ok := st.Revision(st.UpdateRevision); ok {
		restartedAt = cur.Spec.RestartedAt
	}
	if !exists || specChanged(st.Spec, s) {
		st.Generation++
	}
	st.Spec = s
	spec := s.RevisionSpec(ids.Main)
	spec.InitImageIDs = maps.Clone(ids.Init)
	spec.RestartedAt = restartedAt
	res.Changed = st.SetUpdateRevision(spec, cause, now)
	st.ReopenProgress() // a new command: a new progress window, whether it waits or not
	st.RetryRefused()
	if res.Changed && st.Paused {
		res.Notes = append(res.Notes, fmt.Sprintf("the rollout is paused: no replica is replaced until 'ostset rollout resume %s'", s.Name))
	}
	return res, nil
}

// keepOverrides carries the values commands set into s where the file leaves the
// field out, and forgets those the file now sets itself. It says what it did.
func (st *State) keepOverrides(s *config.Set) []string {
	var notes []string
	keep := func(o **int, field, cmd string, value *int) {
		switch {
		case *o == nil:
		case s.Written[field]:
			if *value != **o {
				notes = append(notes, fmt.Sprintf("%s: the file's %d replaces %d set by '%s'", field, *value, **o, cmd))
			}
			*o = nil
		default:
			*value = **o
			notes = append(notes, fmt.Sprintf("%s: keeping %d set by '%s' (the file does not set it)", field, **o, cmd))
		}
	}
	replicas := s.DesiredReplicas()
	keep(&st.Overrides.Replicas, fieldReplicas, "ostset scale", &replicas)
	s.Replicas = &replicas
	keep(&st.Overrides.Partition, fieldPartition, "ostset rollout partition", &s.UpdateStrategy.RollingUpdate.Partition)
	return notes
}

// specChanged compares specs as stored, ignoring where they were read from.
func specChanged(old, new config.Set) bool {
	old.Source, new.Source = "", ""
	a, _ := json.Marshal(old)
	b, _ := json.Marshal(new)
	return string(a) != string(b)
}

// Field paths of the spec that commands can set (see Overrides).
const (
	fieldReplicas  = "replicas"
	fieldPartition = "updateStrategy.rollingUpdate.partition"
)
