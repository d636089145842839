package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
)

// ResolveImage returns the local image ID of ref. It never pulls: an image that
// is not present locally is an error.
func (r *Runtime) ResolveImage(ctx context.Context, ref string) (string, error) {
	res, err := r.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", fmt.Errorf("image %s is not present locally and ostset does not pull from registries: build, load or import it first (%w)", ref, err)
	}
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return res.ID, nil
}
