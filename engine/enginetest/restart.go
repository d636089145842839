package enginetest

import (
	"context"
	"fmt"
	"time"

	"github.com/ostset/ostset/engine"
)

// RestartReplica implements liveness.Runtime: the container starts again in
// place (same ID), as a stop and a start would leave it, and the restart is
// logged ("restart web-1").
func (r *Runtime) RestartReplica(ctx context.Context, _, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID != id {
			continue
		}
		if err := engine.CheckOwner(ctx, c.Owner); err != nil {
			return fmt.Errorf("refusing to restart container %s: %w", name, err)
		}
		c.StartedAt = time.Now()
		r.containers[name] = c
		r.record("restart %s", name)
		return nil
	}
	return fmt.Errorf("no container %s", id)
}
