package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/volumes"
)

// floorSet describes the replicas the floor makes: what ostset would render for
// a set with one volume claim template, a healthcheck and nothing else (see
// engine.Render), spelled out as flags.
type floorSet struct {
	name     string
	replicas int
	image    string
	network  string // default: name
	service  string // default: name
	revision string
	env      kvFlag
	labels   kvFlag // on containers, volumes and the network, with ostset's own
	claim    string // volume claim name; "" for no volume
	mountAt  string
	health   string // healthcheck command, split on spaces; "" keeps the image's
	interval time.Duration
	hcTime   time.Duration
	retries  int
	grace    time.Duration
	timeout  time.Duration
	verbose  bool
}

// kvFlag is a repeatable KEY=VALUE flag.
type kvFlag map[string]string

func (f kvFlag) String() string { return fmt.Sprint(map[string]string(f)) }

func (f kvFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", s)
	}
	f[k] = v
	return nil
}

// setFlags defines the set's flags on fs; parse checks them.
func setFlags(fs *flag.FlagSet) *floorSet {
	s := &floorSet{env: kvFlag{}, labels: kvFlag{}}
	fs.StringVar(&s.name, "name", "", "set name (required): replicas are NAME-0, NAME-1, …")
	fs.IntVar(&s.replicas, "replicas", 1, "number of replicas")
	fs.StringVar(&s.image, "image", "", "image (required)")
	fs.StringVar(&s.network, "network", "", "user-defined network (default: the set name)")
	fs.StringVar(&s.service, "service", "", "service name for DNS aliases (default: the set name)")
	fs.StringVar(&s.revision, "revision", "floor", "value of the io.ostset.revision label")
	fs.Var(s.env, "env", "KEY=VALUE for the environment (repeatable)")
	fs.Var(s.labels, "label", "KEY=VALUE label on everything made (repeatable)")
	fs.StringVar(&s.claim, "claim", "data", "volume claim name: a volume CLAIM-NAME-ORDINAL per replica (\"\": none)")
	fs.StringVar(&s.mountAt, "mount", "/data", "where the claim's volume is mounted")
	fs.StringVar(&s.health, "health-cmd", "", "healthcheck command, split on spaces (CMD form)")
	fs.DurationVar(&s.interval, "health-interval", time.Second, "healthcheck interval")
	fs.DurationVar(&s.hcTime, "health-timeout", time.Second, "healthcheck timeout")
	fs.IntVar(&s.retries, "health-retries", 3, "healthcheck retries")
	fs.DurationVar(&s.grace, "grace", 10*time.Second, "stop grace period (ostset's default terminationGracePeriodSeconds)")
	fs.DurationVar(&s.timeout, "timeout", 5*time.Minute, "give up after this long")
	fs.BoolVar(&s.verbose, "v", false, "print each replica as it becomes healthy")
	return s
}

func (s *floorSet) check() error {
	if s.name == "" {
		return errors.New("-name is required")
	}
	if s.replicas < 0 {
		return fmt.Errorf("-replicas must be >= 0, got %d", s.replicas)
	}
	s.network = cmpOr(s.network, s.name)
	s.service = cmpOr(s.service, s.name)
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parseSet parses a mode's flags into a checked floorSet.
func parseSet(mode string, args []string, extra func(*flag.FlagSet)) (*floorSet, error) {
	fs := flag.NewFlagSet("floor "+mode, flag.ContinueOnError)
	s := setFlags(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return s, s.check()
}

func (s *floorSet) replicaName(ord int) string { return plan.ReplicaName(s.name, ord) }

// createOptions is the create call of one replica, as the docker package of
// ostset builds it, with the volume made by the create itself (a volume mount
// with labels creates a missing volume): no VolumeCreate call.
func (s *floorSet) createOptions(ord int) client.ContainerCreateOptions {
	name := s.replicaName(ord)
	labels := maps.Clone(map[string]string(s.labels))
	labels[plan.LabelSet] = s.name
	labels[plan.LabelOrdinal] = strconv.Itoa(ord)
	labels[plan.LabelRevision] = s.revision
	env := maps.Clone(map[string]string(s.env))
	env["OSTSET_SET"], env["OSTSET_ORDINAL"], env["OSTSET_NAME"], env["OSTSET_SERVICE"] = s.name, strconv.Itoa(ord), name, s.service
	var envList []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		envList = append(envList, k+"="+env[k])
	}
	stop := int(s.grace.Seconds())
	cfg := &container.Config{Hostname: name, Env: envList, Image: s.image, Labels: labels, StopTimeout: &stop}
	if s.health != "" {
		cfg.Healthcheck = &container.HealthConfig{Test: append([]string{"CMD"}, strings.Fields(s.health)...),
			Interval: s.interval, Timeout: s.hcTime, Retries: s.retries}
	}
	host := &container.HostConfig{
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyUnlessStopped},
		NetworkMode:   container.NetworkMode(s.network),
	}
	if s.claim != "" {
		vl := maps.Clone(map[string]string(s.labels))
		vl[plan.LabelSet], vl[plan.LabelOrdinal], vl[plan.LabelClaim] = s.name, strconv.Itoa(ord), s.claim
		host.Mounts = []mount.Mount{{Type: mount.TypeVolume, Source: volumes.Name(s.claim, s.name, ord), Target: s.mountAt,
			VolumeOptions: &mount.VolumeOptions{Labels: vl}}}
	}
	return client.ContainerCreateOptions{Name: name, Config: cfg, HostConfig: host,
		NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
			s.network: {Aliases: []string{name, name + "." + s.service, s.service}},
		}}}
}

// run connects to the engine and calls f with a context bounded by -timeout.
func (s *floorSet) run(f func(ctx context.Context, cli *client.Client) error) error {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return err
	}
	defer cli.Close() //nolint:errcheck // idle connections only
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	return f(ctx, cli)
}

// health follows the set's containers' health from the engine's event stream,
// opened before anything is created so that nothing is missed. It never polls.
type health struct {
	msgs <-chan events.Message
	errs <-chan error
	// seen: healthy containers reported before anyone waited for them (Parallel).
	seen map[string]bool
}

func watchHealth(ctx context.Context, cli *client.Client, set string) (*health, error) {
	// The SDK sends the request from a goroutine: ping first, so that the API
	// version is negotiated and the engine reachable before the stream opens.
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return nil, err
	}
	f := make(client.Filters).Add("type", string(events.ContainerEventType)).
		Add("label", plan.LabelSet+"="+set).Add("event", "health_status", "die")
	res := cli.Events(ctx, client.EventsListOptions{Filters: f})
	return &health{msgs: res.Messages, errs: res.Err, seen: map[string]bool{}}, nil
}

// wait returns once every container in ids is healthy; a container that dies or
// turns unhealthy first is an error.
func (h *health) wait(ctx context.Context, ids map[string]string, verbose bool) error {
	left := map[string]string{}
	for id, name := range ids {
		if !h.seen[id] {
			left[id] = name
		}
	}
	for len(left) > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d replicas to be healthy: %w", len(left), ctx.Err())
		case err := <-h.errs:
			return fmt.Errorf("event stream: %w", err)
		case m := <-h.msgs:
			switch m.Action {
			case "health_status: healthy":
				h.seen[m.Actor.ID] = true
				if name, ok := left[m.Actor.ID]; ok {
					delete(left, m.Actor.ID)
					if verbose {
						fmt.Printf("%s healthy at %s\n", name, time.Unix(0, m.TimeNano).UTC().Format("15:04:05.000"))
					}
				}
			case "health_status: unhealthy", "die":
				if name, ok := left[m.Actor.ID]; ok {
					return fmt.Errorf("%s: %s", name, m.Action)
				}
			}
		}
	}
	return nil
}

// createStart creates and starts one replica and returns its ID.
func (s *floorSet) createStart(ctx context.Context, cli *client.Client, ord int) (string, error) {
	c, err := cli.ContainerCreate(ctx, s.createOptions(ord))
	if err != nil {
		return "", fmt.Errorf("create %s: %w", s.replicaName(ord), err)
	}
	if _, err := cli.ContainerStart(ctx, c.ID, client.ContainerStartOptions{}); err != nil {
		return "", fmt.Errorf("start %s: %w", s.replicaName(ord), err)
	}
	return c.ID, nil
}
