package docker

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/docker/containerspec"
	"github.com/ostset/ostset/docker/hookexec"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// cleanupTimeout bounds the removal of a container whose start failed.
const cleanupTimeout = 30 * time.Second

// minStopGrace is the least grace a stop gets after pre_stop hooks.
const minStopGrace = 2 * time.Second

// CreateReplica ensures the spec's volumes and network, creates the container,
// gives new volumes their owner (see ownVolumes), copies the spec's files
// into it (see copyFiles) and starts it. A container
// whose start fails is removed again, so a failed call leaves no container
// behind (volumes it created stay: they carry the set label).
//
// A start that fails for a network that no longer exists (its ID was cached,
// and another process's down removed it before this process heard of it) is
// tried once more at once, the network looked up or made again: that is no
// failure to report.
func (r *Runtime) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	res, err := r.createReplica(ctx, spec)
	if err == nil || !goneNetworkRe.MatchString(err.Error()) {
		return res, err
	}
	again, err := r.createReplica(ctx, spec)
	made := res.CreatedVolumes // the first try's: not reused from an earlier life
	again.ReusedVolumes = slices.DeleteFunc(again.ReusedVolumes, func(v plan.Volume) bool { return slices.Contains(made, v.Name) })
	if err != nil {
		again.CreatedVolumes = slices.Compact(slices.Sorted(slices.Values(append(made, again.CreatedVolumes...))))
	}
	return again, err
}

// goneNetworkRe matches the engine's refusal to start a container whose
// network is gone (at API 1.41 the create succeeds).
var goneNetworkRe = regexp.MustCompile(`network \S+ not found`)

func (r *Runtime) createReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	opts, err := createOptions(spec)
	if err != nil {
		return engine.CreateResult{}, err
	}
	if h := spec.Healthcheck; h != nil && h.StartInterval > 0 && !r.HasStartInterval() {
		// Below 1.44 the engine drops the field without a word.
		return engine.CreateResult{}, &engine.PermanentError{Replica: spec.Name, Err: fmt.Errorf("%s: %s", spec.Name, StartIntervalUnsupported(r.APIVersion()))}
	}
	opts.Config.Healthcheck = r.healthcheckAtCreate(opts.Config.Healthcheck)
	reused, fresh, err := r.ensureVolumes(ctx, spec)
	if err != nil {
		return engine.CreateResult{}, classifyStart(spec.Name, fmt.Errorf("%s: %w", spec.Name, err))
	}
	// A failure from here on leaves the volumes it made: the caller records
	// them as the replica's, so that the retry's reuse of them is no news.
	failed := engine.CreateResult{CreatedVolumes: slices.Sorted(maps.Keys(fresh))}
	if plan.NetworkMode(spec.Network) {
		containerspec.NetworkMode(&opts, spec.Network)
	} else {
		netID, err := r.EnsureNetwork(ctx, spec.Network, withIPAM(plan.NetworkLabels(spec.Labels), spec.IPAM))
		if err != nil {
			return failed, fmt.Errorf("%s: %w", spec.Name, err)
		}
		endpoint, err := containerspec.Endpoint(spec.Aliases, spec.IPv4Address, spec.IPv6Address)
		if err != nil {
			return failed, &engine.PermanentError{Replica: spec.Name, Err: fmt.Errorf("%s: %w", spec.Name, err)}
		}
		attach(&opts, netID, endpoint)
	}
	created, err := r.cli.ContainerCreate(ctx, opts)
	if cerrdefs.IsConflict(err) {
		id, started, adoptErr := r.adoptCreated(ctx, spec, err)
		if adoptErr != nil {
			return failed, adoptErr
		}
		if started {
			return engine.CreateResult{ID: id, ReusedVolumes: reused}, nil
		}
		created.ID = id
	} else if err != nil {
		if cerrdefs.IsNotFound(err) {
			r.forgetNetwork(spec.Network) // perhaps removed since it was cached: the retry looks again
		}
		return failed, classifyStart(spec.Name, fmt.Errorf("create container %s: %w", spec.Name, err))
	}
	if err := r.ownVolumes(ctx, created.ID, spec, fresh); err != nil {
		return failed, r.discard(ctx, spec.Name, created.ID, err)
	}
	if err := r.copyFiles(ctx, created.ID, spec); err != nil {
		return failed, r.discard(ctx, spec.Name, created.ID, err)
	}
	if err := r.joinNetworks(ctx, created.ID, spec.Name, plan.NetworkLabels(spec.Labels), spec.OtherNetworks); err != nil {
		return failed, classifyStart(spec.Name, r.discard(ctx, spec.Name, created.ID, err))
	}
	if _, err := r.cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		// At API 1.41 a create with the ID of a network removed since it was
		// cached succeeds; only the start fails ("network … not found"). The
		// retry looks the network up again.
		r.forgetNetwork(spec.Network)
		for _, n := range spec.OtherNetworks {
			r.forgetNetwork(n.Name)
		}
		return failed, r.explainPort(ctx, classifyStart(spec.Name, r.discard(ctx, spec.Name, created.ID, err)))
	}
	res := engine.CreateResult{ID: created.ID, ReusedVolumes: reused}
	if err := hookexec.Run(ctx, r.cli, created.ID, spec.Name, "post_start", spec.Hooks.PostStart); err != nil {
		// As docker compose: the container runs on, and the command that
		// waits for it stops with the hook's failure.
		failed.ID = created.ID
		return failed, &engine.PermanentError{Replica: spec.Name, Err: err}
	}
	return res, nil
}

// withIPAM is labels with the network's pools (plan.LabelIPAM), if any.
func withIPAM(labels map[string]string, ipam string) map[string]string {
	if ipam == "" {
		return labels
	}
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[plan.LabelIPAM] = ipam
	return out
}

// joinNetworks connects a container (called name) to the networks joins,
// each with its aliases: at API 1.41 a create takes one network. A network
// the container is on already (a create adopted by adoptCreated) is left as
// it is.
func (r *Runtime) joinNetworks(ctx context.Context, id, name string, labels map[string]string, joins []plan.NetworkJoin) error {
	for _, n := range joins {
		netID, err := r.EnsureNetwork(ctx, n.Name, withIPAM(labels, n.IPAM))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		endpoint, err := containerspec.Endpoint(n.Aliases, n.IPv4Address, n.IPv6Address)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		_, err = r.cli.NetworkConnect(ctx, netID, client.NetworkConnectOptions{Container: id, EndpointConfig: endpoint})
		if err != nil && !strings.Contains(err.Error(), "already exists in network") {
			if cerrdefs.IsNotFound(err) {
				r.forgetNetwork(n.Name)
			}
			return fmt.Errorf("connect container %s to network %s: %w", name, n.Name, err)
		}
	}
	return nil
}

// ConnectNetworks connects a container of the set to those of joins it has
// no endpoint on, each with its aliases: a replica created by a process
// stopped before it joined them, or one disconnected by hand, or whose
// network was removed (and is made again).
func (r *Runtime) ConnectNetworks(ctx context.Context, set, id string, joins []plan.NetworkJoin) error {
	if len(joins) == 0 {
		return nil
	}
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	c, err := r.changeable(ctx, "connect", set, id)
	if err != nil {
		return err
	}
	var missing []plan.NetworkJoin
	for _, n := range joins {
		if c.NetworkSettings == nil || c.NetworkSettings.Networks[n.Name] == nil {
			missing = append(missing, n)
		}
	}
	var labels map[string]string
	if c.Config != nil {
		labels = plan.NetworkLabels(c.Config.Labels)
	}
	return r.joinNetworks(ctx, c.ID, containerName(c, id), labels, missing)
}

// adoptCreated handles a create refused because the name is taken. A container
// that carries exactly the labels this create would have given it (set,
// ordinal, revision, init container, job, owner) is one an earlier call created
// while its answer was lost, or while the engine was slow to show it: it is
// adopted (its ID returned; started reports whether it has left the created
// state, so the caller does not start it again). Any other holder of the name
// is a conflict, left alone.
func (r *Runtime) adoptCreated(ctx context.Context, spec plan.ReplicaSpec, conflict error) (id string, started bool, err error) {
	res, err := r.cli.ContainerInspect(ctx, spec.Name, client.ContainerInspectOptions{})
	if err != nil {
		return "", false, fmt.Errorf("create container %s: %w (and inspecting the holder of the name failed: %w)", spec.Name, conflict, err)
	}
	c := res.Container
	var labels map[string]string
	if c.Config != nil {
		labels = c.Config.Labels
	}
	if why := notCreatedFor(spec, labels); why != "" {
		return "", false, fmt.Errorf("create container %s: the name is already in use by container %s, which this create did not make (%s); ostset leaves it alone", spec.Name, shortID(c.ID), why)
	}
	return c.ID, c.State == nil || c.State.Status != container.StateCreated, nil
}

// notCreatedFor says which identity label of labels differs from what spec
// gives a container it creates; "" if none does.
func notCreatedFor(spec plan.ReplicaSpec, labels map[string]string) string {
	want := []struct{ key, value string }{
		{plan.LabelSet, spec.Set},
		{plan.LabelOrdinal, strconv.Itoa(spec.Ordinal)},
		{plan.LabelRevision, spec.Revision},
		{plan.LabelInit, spec.Labels[plan.LabelInit]},
		{plan.LabelJob, spec.Labels[plan.LabelJob]},
		{plan.LabelOwner, spec.Labels[plan.LabelOwner]},
	}
	for _, w := range want {
		got, ok := labels[w.key]
		if got != w.value || w.value == "" && ok {
			if !ok {
				return fmt.Sprintf("no %s label", w.key)
			}
			return fmt.Sprintf("label %s is %q, not %q", w.key, got, w.value)
		}
	}
	if spec.Set == "" || spec.Revision == "" {
		return "the create names no set or revision"
	}
	return ""
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// discard removes a container that failed to start and returns the start error.
func (r *Runtime) discard(ctx context.Context, name, id string, startErr error) error {
	err := fmt.Errorf("%s: start: %w", name, startErr)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_, rmErr := r.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if rmErr != nil && !cerrdefs.IsNotFound(rmErr) {
		return fmt.Errorf("%w (and removing the container failed: %w)", err, rmErr)
	}
	return err
}

// StartReplica starts a created or stopped container of the set.
func (r *Runtime) StartReplica(ctx context.Context, set, id string) error {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	c, err := r.changeable(ctx, "start", set, id)
	if err != nil {
		return err
	}
	if _, err := r.cli.ContainerStart(ctx, c.ID, client.ContainerStartOptions{}); err != nil {
		name := containerName(c, id)
		err = fmt.Errorf("%s: start: %w", name, err)
		if lostStart(err) && r.neverRan(ctx, c.ID) {
			return &engine.LostStartError{Replica: name, Err: err}
		}
		return r.explainPort(ctx, classifyStart(name, err))
	}
	return r.runHooks(ctx, c, containerName(c, id), false)
}

// runHooks runs the post_start (or, with stop, the pre_stop) hooks a
// container was created with (plan.LabelHooks). A post_start hook that fails
// is a *engine.PermanentError, as at its create.
func (r *Runtime) runHooks(ctx context.Context, c container.InspectResponse, name string, stop bool) error {
	hooks, err := plan.ParseHooks(c.Config.Labels[plan.LabelHooks])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if stop {
		return hookexec.Run(ctx, r.cli, c.ID, name, "pre_stop", hooks.PreStop)
	}
	if err := hookexec.Run(ctx, r.cli, c.ID, name, "post_start", hooks.PostStart); err != nil {
		return &engine.PermanentError{Replica: name, Err: err}
	}
	return nil
}

// neverRan says whether the engine reports the container, after a failed
// start, as created and never run: no process, not running, never started.
// Only such a container is removed for a lost start (engine.LostStartError):
// one that ran may hold what its process did.
func (r *Runtime) neverRan(ctx context.Context, id string) bool {
	res, err := r.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return false
	}
	return createdNeverRun(res.Container.State)
}

// StopReplica stops a container of the set, giving it grace to exit after the
// stop signal, and keeps it (ostset stop). Docker restarts no container it
// was told to stop, whatever its restart policy, until it is started again.
func (r *Runtime) StopReplica(ctx context.Context, set, id string, grace time.Duration) error {
	ctx, cancel := r.bound(ctx, grace)
	defer cancel()
	c, err := r.changeable(ctx, "stop", set, id)
	if err != nil {
		return err
	}
	name := containerName(c, id)
	grace, hookErr := r.preStop(ctx, c, name, grace)
	t := seconds(grace)
	if _, err := r.cli.ContainerStop(ctx, c.ID, client.ContainerStopOptions{Timeout: &t}); err != nil {
		return fmt.Errorf("stop container %s: %w", name, err)
	}
	return hookErr // a *plan.PreStopError: stopped all the same
}

// preStop runs the pre_stop hooks of a running container within grace, and
// returns what is left of grace for the stop: at least minStopGrace, as the
// kubelet gives a preStop hook. A hook that failed is a *plan.PreStopError:
// the stop goes on all the same.
func (r *Runtime) preStop(ctx context.Context, c container.InspectResponse, name string, grace time.Duration) (time.Duration, error) {
	if st := c.State; st == nil || !st.Running || st.Paused || grace <= 0 {
		return grace, nil
	}
	began := time.Now()
	hctx, hcancel := context.WithTimeout(ctx, grace)
	defer hcancel()
	var hookErr error
	if err := r.runHooks(hctx, c, name, true); err != nil {
		hookErr = &plan.PreStopError{Err: err}
	}
	return max(grace-time.Since(began), minStopGrace), hookErr
}

// RemoveReplica stops a container of the set, giving it grace to exit after the
// stop signal, and removes it. A container already gone is not an error.
func (r *Runtime) RemoveReplica(ctx context.Context, set, id string, grace time.Duration) error {
	ctx, cancel := r.bound(ctx, grace)
	defer cancel()
	c, err := r.changeable(ctx, "remove", set, id)
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	name := containerName(c, id)
	grace, hookErr := r.preStop(ctx, c, name, grace)
	if st := c.State; st != nil && (st.Running || st.Restarting || st.Paused) {
		t := seconds(grace)
		_, err := r.cli.ContainerStop(ctx, c.ID, client.ContainerStopOptions{Timeout: &t})
		if err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("stop container %s: %w", name, err)
		}
	}
	// RemoveVolumes removes the anonymous volumes of the image's VOLUMEs that
	// no claim covers (a replacement never gets them back); Docker never
	// removes a named volume with it, so the per-ordinal volumes stay.
	_, err = r.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %s: %w", name, err)
	}
	return hookErr // a *plan.PreStopError: removed all the same
}

// ownContainer inspects a container and refuses it unless it carries the set's
// label. A NotFound error is returned wrapped, so callers can test it.
func (r *Runtime) ownContainer(ctx context.Context, op, set, id string) (container.InspectResponse, error) {
	res, err := r.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return container.InspectResponse{}, fmt.Errorf("inspect container %s: %w", id, err)
	}
	c := res.Container
	var labels map[string]string
	if c.Config != nil {
		labels = c.Config.Labels
	}
	if !belongs(labels, set) {
		return container.InspectResponse{}, refuse(op, "container", containerName(c, id), set, labels)
	}
	return c, nil
}

// changeable is ownContainer for a change: it also refuses a container that
// another state directory owns (engine.CheckOwner), whatever the engine planned.
func (r *Runtime) changeable(ctx context.Context, op, set, id string) (container.InspectResponse, error) {
	c, err := r.ownContainer(ctx, op, set, id)
	if err != nil {
		return c, err
	}
	if err := engine.CheckOwner(ctx, plan.OwnerOf(c.Config.Labels)); err != nil {
		return container.InspectResponse{}, fmt.Errorf("refusing to %s container %s of set %s: %w", op, containerName(c, id), set, err)
	}
	return c, nil
}

func containerName(c container.InspectResponse, fallback string) string {
	if n := strings.TrimPrefix(c.Name, "/"); n != "" {
		return n
	}
	return fallback
}

// WaitExit waits until a container of the set has stopped and returns its
// exit code: how a compose job (a service others wait for with
// service_completed_successfully) is run to completion.
func (r *Runtime) WaitExit(ctx context.Context, set, id string) (int, error) {
	if _, err := r.ownContainer(ctx, "wait for", set, id); err != nil {
		return 0, err
	}
	res := r.cli.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case w := <-res.Result:
		if w.Error != nil && w.Error.Message != "" {
			return int(w.StatusCode), fmt.Errorf("wait for %s: %s", id, w.Error.Message)
		}
		return int(w.StatusCode), nil
	case err := <-res.Error:
		return 0, fmt.Errorf("wait for %s: %w", id, err)
	}
}
