package main

import (
	"context"
	"flag"
	"fmt"
	"maps"

	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"
)

func init() { modes["up"] = up }

// up makes a new set: the network, then each replica with its volume (create,
// start). OrderedReady creates NAME-i+1 as soon as the engine reports NAME-i
// healthy; Parallel creates all of them at once. It returns once all are
// healthy. API calls: a ping, the event stream, the network, and per replica a
// create and a start. Nothing of the set may exist beforehand.
func up(args []string) error {
	var policy string
	s, err := parseSet("up", args, func(fs *flag.FlagSet) {
		fs.StringVar(&policy, "policy", "OrderedReady", "OrderedReady or Parallel")
	})
	if err != nil {
		return err
	}
	if policy != "OrderedReady" && policy != "Parallel" {
		return fmt.Errorf("-policy must be OrderedReady or Parallel, got %q", policy)
	}
	return s.run(func(ctx context.Context, cli *client.Client) error {
		h, err := watchHealth(ctx, cli, s.name)
		if err != nil {
			return err
		}
		if _, err := cli.NetworkCreate(ctx, s.network, client.NetworkCreateOptions{Driver: "bridge", Labels: maps.Clone(map[string]string(s.labels))}); err != nil {
			return fmt.Errorf("create network %s: %w", s.network, err)
		}
		if policy == "OrderedReady" {
			for ord := range s.replicas {
				id, err := s.createStart(ctx, cli, ord)
				if err != nil {
					return err
				}
				if err := h.wait(ctx, map[string]string{id: s.replicaName(ord)}, s.verbose); err != nil {
					return err
				}
			}
			return nil
		}
		ids := make([]string, s.replicas)
		var g errgroup.Group
		for ord := range s.replicas {
			g.Go(func() (err error) {
				ids[ord], err = s.createStart(ctx, cli, ord)
				return err
			})
		}
		// Health events queue in the stream meanwhile; wait reads them all.
		if err := g.Wait(); err != nil {
			return err
		}
		want := map[string]string{}
		for ord, id := range ids {
			want[id] = s.replicaName(ord)
		}
		return h.wait(ctx, want, s.verbose)
	})
}
