package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

func init() { modes["react"] = react }

// react: the floor of ostset's daemon healing a replica. It remembers the
// configuration of every container carrying a label (image, env, labels,
// healthcheck, hostname, network with its aliases, mounts such as the
// per-ordinal volume), and when one is destroyed creates and starts it again
// with the same name and configuration: one ContainerCreate and one
// ContainerStart, nothing else. With -on die it answers a container's exit
// instead: one ContainerRemove (forced: the container is stopped already),
// then the same create and start. It runs until SIGTERM or SIGINT.
func react(args []string) error {
	fs := flag.NewFlagSet("react", flag.ContinueOnError)
	label := fs.String("label", "", "watch the containers carrying this label (key=value), required")
	on := fs.String("on", "destroy", "the event to answer: destroy, or die (remove, then create)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *label == "" || !strings.Contains(*label, "=") {
		return fmt.Errorf("react: -label key=value is required")
	}
	if *on != "destroy" && *on != "die" {
		return fmt.Errorf("react: -on must be destroy or die")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return err
	}
	defer func() { _ = cli.Close() }()

	// Subscribe first, then learn the containers, so that nothing is missed.
	f := make(client.Filters).Add("type", string(events.ContainerEventType)).Add("label", *label).Add("event", *on)
	stream := cli.Events(ctx, client.EventsListOptions{Filters: f})
	known, err := learn(ctx, cli, *label)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "floor react: watching %d containers with %s for %s\n", len(known), *label, *on)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-stream.Err:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("events: %w", err)
		case m := <-stream.Messages:
			opts, ok := known[m.Actor.Attributes["name"]]
			if !ok {
				continue
			}
			id := m.Actor.ID
			wg.Go(func() {
				if *on == "die" {
					if _, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true}); err != nil {
						fmt.Fprintln(os.Stderr, "floor react: remove", opts.Name+":", err)
						return
					}
				}
				if err := recreate(ctx, cli, opts); err != nil {
					fmt.Fprintln(os.Stderr, "floor react:", err)
				}
			})
		}
	}
}

// learn inspects the labelled containers and keeps what recreating each takes.
func learn(ctx context.Context, cli *client.Client, label string) (map[string]client.ContainerCreateOptions, error) {
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", label)})
	if err != nil {
		return nil, err
	}
	known := map[string]client.ContainerCreateOptions{}
	for _, s := range list.Items {
		res, err := cli.ContainerInspect(ctx, s.ID, client.ContainerInspectOptions{})
		if err != nil {
			return nil, err
		}
		c := res.Container
		name := strings.TrimPrefix(c.Name, "/")
		nets := map[string]*network.EndpointSettings{}
		for n, ep := range c.NetworkSettings.Networks {
			// Inspect adds the short container ID to the aliases below API 1.45.
			aliases := slices.DeleteFunc(slices.Clone(ep.Aliases), func(a string) bool { return strings.HasPrefix(c.ID, a) })
			nets[n] = &network.EndpointSettings{Aliases: aliases}
		}
		known[name] = client.ContainerCreateOptions{
			Name:             name,
			Config:           c.Config,
			HostConfig:       hostConfig(c.HostConfig),
			NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: nets},
		}
	}
	return known, nil
}

// hostConfig keeps what a create needs of an inspected host config: the
// mounts, the network mode, the restart policy, the resources.
func hostConfig(h *container.HostConfig) *container.HostConfig {
	return &container.HostConfig{
		Mounts:        h.Mounts,
		Binds:         h.Binds,
		NetworkMode:   h.NetworkMode,
		RestartPolicy: h.RestartPolicy,
		PortBindings:  h.PortBindings,
		Resources:     h.Resources,
	}
}

func recreate(ctx context.Context, cli *client.Client, opts client.ContainerCreateOptions) error {
	created, err := cli.ContainerCreate(ctx, opts)
	if err != nil {
		return fmt.Errorf("create %s: %w", opts.Name, err)
	}
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("start %s: %w", opts.Name, err)
	}
	return nil
}
