package main

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

func init() { modes["update"] = update }

// update rolls an existing set (made by up) to the spec the flags give, as a
// RollingUpdate with maxUnavailable 1 does: from the highest ordinal down, each
// replica is stopped (SIGTERM, then the grace period), removed, created again
// (its volume is kept) and started, once the one above is healthy again. It
// returns once the last is healthy. API calls: a ping, the event stream, and
// per replica a stop, a remove, a create and a start. It does not look at what
// runs: every replica NAME-0..NAME-(replicas-1) is replaced.
func update(args []string) error {
	s, err := parseSet("update", args, nil)
	if err != nil {
		return err
	}
	return s.run(func(ctx context.Context, cli *client.Client) error {
		h, err := watchHealth(ctx, cli, s.name)
		if err != nil {
			return err
		}
		grace := int(s.grace.Seconds())
		for ord := s.replicas - 1; ord >= 0; ord-- {
			name := s.replicaName(ord)
			if _, err := cli.ContainerStop(ctx, name, client.ContainerStopOptions{Timeout: &grace}); err != nil {
				return fmt.Errorf("stop %s: %w", name, err)
			}
			if _, err := cli.ContainerRemove(ctx, name, client.ContainerRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
				return fmt.Errorf("remove %s: %w", name, err)
			}
			id, err := s.createStart(ctx, cli, ord)
			if err != nil {
				return err
			}
			if err := h.wait(ctx, map[string]string{id: name}, s.verbose); err != nil {
				return err
			}
		}
		return nil
	})
}
