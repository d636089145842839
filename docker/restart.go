package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/moby/moby/client"
)

// RestartReplica restarts a running container of the set in place, as the
// kubelet restarts a container whose liveness probe failed: its stop signal,
// grace to exit, then a start of the same container (name, ID, volumes and
// network endpoints kept). The container must carry the set's label and be
// the caller's (engine.CheckOwner).
func (r *Runtime) RestartReplica(ctx context.Context, set, id string, grace time.Duration) error {
	ctx, cancel := r.bound(ctx, grace)
	defer cancel()
	c, err := r.changeable(ctx, "restart", set, id)
	if err != nil {
		return err
	}
	t := seconds(grace)
	if _, err := r.cli.ContainerRestart(ctx, c.ID, client.ContainerRestartOptions{Timeout: &t}); err != nil {
		return fmt.Errorf("restart container %s: %w", containerName(c, id), err)
	}
	return nil
}
