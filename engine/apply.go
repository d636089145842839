package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/ostset/ostset/config"
)

// Field paths of the spec that commands can set (see Overrides).
const (
	fieldReplicas  = "replicas"
	fieldPartition = "updateStrategy.rollingUpdate.partition"
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

// Apply stores s as the set's desired spec and makes its template, with its
// images (the main container's and the init containers') pulled per their
// imagePullPolicy and resolved to IDs, the update revision (see Images and
// State.Apply). progress, if set, sees the pulls.
func (c *Controller) Apply(ctx context.Context, s config.Set, cause string, progress func(PullProgress)) (ApplyResult, error) {
	ids, err := c.Images(ctx, s, progress)
	if err != nil {
		return ApplyResult{}, err
	}
	return c.ApplyImages(ctx, s, ids, cause)
}

// ImageIDs are a set's images resolved to local image IDs.
type ImageIDs struct {
	Main string
	// Init holds the init containers' image IDs by init container name.
	Init map[string]string
}

// Image pulls the set's image per its imagePullPolicy and returns its local ID.
// A problem with the image is an *ImageError, a registry that cannot be
// reached a *RegistryError, either wrapped with the set's file line.
func (c *Controller) Image(ctx context.Context, s config.Set, progress func(PullProgress)) (string, error) {
	imageID, err := c.Runtime.EnsureImage(ctx, s.Template.Image, s.Template.PullPolicy(), progress)
	if imageProblem(err) {
		return "", fmt.Errorf("%s: template.image: %w", s.FieldSource("template.image"), err)
	}
	return imageID, err
}

// Images pulls, one after the other, the set's image and its init containers'
// images, each per its own imagePullPolicy, and returns their local IDs. An
// image named twice with the same policy is pulled once. A problem with an
// image is an *ImageError, wrapped with the set's file line and field.
func (c *Controller) Images(ctx context.Context, s config.Set, progress func(PullProgress)) (ImageIDs, error) {
	main, err := c.Image(ctx, s, progress)
	if err != nil {
		return ImageIDs{}, err
	}
	ids := ImageIDs{Main: main}
	type pull struct{ ref, policy string }
	done := map[pull]string{{s.Template.Image, s.Template.PullPolicy()}: main}
	for i, ic := range s.Template.InitContainers {
		key := pull{ic.Image, ic.PullPolicy()}
		id, ok := done[key]
		if !ok {
			id, err = c.Runtime.EnsureImage(ctx, ic.Image, ic.PullPolicy(), progress)
			if imageProblem(err) {
				field := fmt.Sprintf("template.initContainers[%d].image", i)
				return ImageIDs{}, fmt.Errorf("%s: %s: %w", s.FieldSource(field), field, err)
			}
			if err != nil {
				return ImageIDs{}, err
			}
			done[key] = id
		}
		if ids.Init == nil {
			ids.Init = map[string]string{}
		}
		ids.Init[ic.Name] = id
	}
	return ids, nil
}

// ApplyImages is Apply with the images already resolved.
func (c *Controller) ApplyImages(ctx context.Context, s config.Set, ids ImageIDs, cause string) (ApplyResult, error) {
	image, err := c.Runtime.ImageConfig(ctx, ids.Main)
	if err != nil {
		return ApplyResult{}, err
	}
	warnings := uncoveredImageVolumes(s.Template, s.VolumeClaimTemplates, image.Volumes)
	warnings = append(warnings, unexposedPorts(s, image.ExposedPorts)...)
	var res ApplyResult
	st, err := c.Store.Update(ctx, s.Name, func(st *State, exists bool) error {
		var err error
		if !exists {
			// A set brought back after ostset down: what its kept volumes were
			// last used by moves into its state.
			if st.VolumeUse, err = c.Store.KeptVolumeUse(s.Name); err != nil {
				return err
			}
		}
		if res, err = st.Apply(s, ids, cause, c.now(), exists); err != nil || exists {
			return err
		}
		return c.Store.ForgetVolumeUse(s.Name)
	})
	res.State, res.Warnings = st, warnings
	return res, err
}

// Apply makes s, with its images resolved to ids, the desired spec and its
// template the update revision. Values that commands set (Overrides) are kept
// where the file leaves the field out, and dropped where the file sets it, as
// kubectl apply keeps what a file does not mention. Applying cancels a delete
// that ostset down left unfinished: the user asked for the set to be up.
func (st *State) Apply(s config.Set, ids ImageIDs, cause string, now time.Time, exists bool) (ApplyResult, error) {
	res := ApplyResult{Created: !exists}
	if !exists {
		st.Created = now
	}
	if st.Deleting != nil {
		st.Deleting = nil
		res.Notes = append(res.Notes, fmt.Sprintf("cancelled the unfinished delete of %s (ostset down): its remaining replicas and volumes are kept and the set is brought back; run 'ostset down %s' to delete it instead", s.Name, s.Name))
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
