package engine

import (
	"context"
	"fmt"
	"github.com/ostset/ostset/engine/setcheck"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/volumes"
)

// Apply stores s as the set's desired spec and makes its template, with its
// images (the main container's and the init containers') pulled per their
// imagePullPolicy and resolved to IDs, the update revision (see Images and
// State.Apply). progress, if set, sees the pulls.
func (c *Controller) Apply(ctx context.Context, s config.Set, cause string, progress func(PullProgress)) (state.ApplyResult, error) {
	ids, err := c.Images(ctx, s, progress)
	if err != nil {
		return state.ApplyResult{}, err
	}
	return c.ApplyImages(ctx, s, ids, cause)
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
func (c *Controller) Images(ctx context.Context, s config.Set, progress func(PullProgress)) (state.ImageIDs, error) {
	main, err := c.Image(ctx, s, progress)
	if err != nil {
		return state.ImageIDs{}, err
	}
	ids := state.ImageIDs{Main: main}
	type pull struct{ ref, policy string }
	done := map[pull]string{{s.Template.Image, s.Template.PullPolicy()}: main}
	for i, ic := range s.Template.InitContainers {
		key := pull{ic.Image, ic.PullPolicy()}
		id, ok := done[key]
		if !ok {
			id, err = c.Runtime.EnsureImage(ctx, ic.Image, ic.PullPolicy(), progress)
			if imageProblem(err) {
				field := fmt.Sprintf("template.initContainers[%d].image", i)
				return state.ImageIDs{}, fmt.Errorf("%s: %s: %w", s.FieldSource(field), field, err)
			}
			if err != nil {
				return state.ImageIDs{}, err
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
func (c *Controller) ApplyImages(ctx context.Context, s config.Set, ids state.ImageIDs, cause string) (state.ApplyResult, error) {
	image, err := c.Runtime.ImageConfig(ctx, ids.Main)
	if err != nil {
		return state.ApplyResult{}, err
	}
	warnings := volumes.UncoveredImageVolumes(s.Template, s.VolumeClaimTemplates, image.Volumes)
	warnings = append(warnings, setcheck.UnexposedPorts(s, image.ExposedPorts)...)
	var res state.ApplyResult
	st, err := c.Store.Update(ctx, s.Name, func(st *state.State, exists bool) error {
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
