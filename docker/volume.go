package docker

import (
	"context"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/volume"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// ensureVolumes creates the spec's per-ordinal volumes that do not exist and
// returns those that already did, and the names of those it created. A volume
// that exists must carry the set, claim and ordinal labels the spec asks for.
func (r *Runtime) ensureVolumes(ctx context.Context, spec plan.ReplicaSpec) ([]plan.Volume, map[string]bool, error) {
	var reused []plan.Volume
	created := map[string]bool{}
	for _, vs := range spec.Volumes {
		if vs.Observed != nil && vs.Observed.Name == vs.Name {
			// Seen with the set's labels by the observation of this pass: not
			// looked up again. Should it be removed in between, the create makes
			// it again with its labels (see volumeOptions), not bare.
			reused = append(reused, *vs.Observed)
			continue
		}
		v, existed, err := r.ensureVolume(ctx, spec.Set, vs)
		if err != nil {
			return nil, nil, err
		}
		if existed {
			reused = append(reused, toVolume(v))
		} else {
			created[vs.Name] = true
		}
	}
	return reused, created, nil
}

func (r *Runtime) ensureVolume(ctx context.Context, set string, vs plan.VolumeSpec) (volume.Volume, bool, error) {
	labels, err := withLabel(vs.Labels, plan.LabelSet, set)
	if err != nil {
		return volume.Volume{}, false, fmt.Errorf("volume %s: %w", vs.Name, err)
	}
	res, err := r.cli.VolumeInspect(ctx, vs.Name, client.VolumeInspectOptions{})
	existed := err == nil
	v := res.Volume
	switch {
	case cerrdefs.IsNotFound(err):
		// Create is idempotent and keeps an existing volume's labels, so a volume
		// created by someone else in the meantime is caught by the check below.
		created, err := r.cli.VolumeCreate(ctx, client.VolumeCreateOptions{
			Name: vs.Name, Driver: vs.Driver, DriverOpts: vs.DriverOpts, Labels: withCreated(labels, time.Now()),
		})
		if err != nil {
			return volume.Volume{}, false, fmt.Errorf("create volume %s: %w", vs.Name, err)
		}
		v = created.Volume
	case err != nil:
		return volume.Volume{}, false, fmt.Errorf("inspect volume %s: %w", vs.Name, err)
	}
	if err := checkVolume(ctx, v, set, labels); err != nil {
		return volume.Volume{}, false, err
	}
	return v, existed, nil
}

// checkVolume verifies that an existing volume carries the set, claim and ordinal
// labels it would have been created with, and an owner label that is the one it
// would have been created with or one the context's ownership owns. Docker's
// volume create is idempotent: without this a replica would share another state
// directory's volume.
func checkVolume(ctx context.Context, v volume.Volume, set string, want map[string]string) error {
	for _, k := range []string{plan.LabelSet, plan.LabelClaim, plan.LabelOrdinal} {
		w, ok := want[k]
		if ok && v.Labels[k] != w {
			return fmt.Errorf("volume %s exists and does not belong to set %s (label %s is %q, want %q)",
				v.Name, set, k, v.Labels[k], w)
		}
	}
	if owner := plan.OwnerOf(v.Labels); owner.ID != want[plan.LabelOwner] {
		if err := engine.CheckOwner(ctx, owner); err != nil {
			return fmt.Errorf("volume %s exists and is not this state directory's: %w", v.Name, err)
		}
	}
	return nil
}

// RemoveVolume removes a volume of the set; one already gone is not an error.
func (r *Runtime) RemoveVolume(ctx context.Context, set, name string) error {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	res, err := r.cli.VolumeInspect(ctx, name, client.VolumeInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect volume %s: %w", name, err)
	}
	if !belongs(res.Volume.Labels, set) {
		return refuse("remove", "volume", name, set, res.Volume.Labels)
	}
	if err := engine.CheckOwner(ctx, plan.OwnerOf(res.Volume.Labels)); err != nil {
		return fmt.Errorf("refusing to remove volume %s of set %s: %w", name, set, err)
	}
	if _, err := r.cli.VolumeRemove(ctx, name, client.VolumeRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove volume %s: %w", name, err)
	}
	return nil
}
