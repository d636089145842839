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
// the caller's (engine.CheckOwner). Its pre_stop hooks run before the stop
// and its post_start hooks after the start, as the kubelet runs a restarted
// container's preStop and postStart handlers.
func (r *Runtime) RestartReplica(ctx context.Context, set, id string, grace time.Duration) error {
	ctx, cancel := r.bound(ctx, grace)
	defer cancel()
	c, err := r.changeable(ctx, "restart", set, id)
	if err != nil {
		return err
	}
	name := containerName(c, id)
	grace, hookErr := r.preStop(ctx, c, name, grace)
	t := seconds(grace)
	if _, err := r.cli.ContainerRestart(ctx, c.ID, client.ContainerRestartOptions{Timeout: &t}); err != nil {
		return fmt.Errorf("restart container %s: %w", name, err)
	}
	if err := r.runHooks(ctx, c, name, false); err != nil {
		return err // post_start, as after the container's first start
	}
	return hookErr // a *plan.PreStopError: restarted all the same
}
