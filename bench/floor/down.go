package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

func init() { modes["down"] = down }

// down removes a set as `ostset down --volumes` does: its replicas one at a
// time, highest ordinal first, each stopped (SIGTERM, then the grace period)
// and removed; then its volumes and its network. API calls: a container list
// and a volume list (by the io.ostset.set label), per replica a stop and a
// remove, per volume a remove, and the network's remove. Only -name, -network,
// -grace and -timeout matter.
func down(args []string) error {
	s, err := parseSet("down", args, nil)
	if err != nil {
		return err
	}
	return s.run(func(ctx context.Context, cli *client.Client) error {
		setLabel := make(client.Filters).Add("label", plan.LabelSet+"="+s.name)
		cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: setLabel})
		if err != nil {
			return fmt.Errorf("list containers: %w", err)
		}
		ord := func(c container.Summary) int { n, _ := strconv.Atoi(c.Labels[plan.LabelOrdinal]); return n }
		items := slices.SortedFunc(slices.Values(cs.Items), func(a, b container.Summary) int { return cmp.Compare(ord(b), ord(a)) })
		grace := int(s.grace.Seconds())
		for _, c := range items {
			if c.State == container.StateRunning || c.State == container.StateRestarting || c.State == container.StatePaused {
				if _, err := cli.ContainerStop(ctx, c.ID, client.ContainerStopOptions{Timeout: &grace}); err != nil {
					return fmt.Errorf("stop %s: %w", c.ID, err)
				}
			}
			if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{}); err != nil {
				return fmt.Errorf("remove %s: %w", c.ID, err)
			}
		}
		vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: setLabel})
		if err != nil {
			return fmt.Errorf("list volumes: %w", err)
		}
		for _, v := range vs.Items {
			if _, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{}); err != nil {
				return fmt.Errorf("remove volume %s: %w", v.Name, err)
			}
		}
		if _, err := cli.NetworkRemove(ctx, s.network, client.NetworkRemoveOptions{}); err != nil {
			return fmt.Errorf("remove network %s: %w", s.network, err)
		}
		return nil
	})
}
