// Package enginetest holds an in-memory engine.Runtime for tests of the
// controller loop.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// Runtime is an in-memory container engine. New containers start running and
// are ready at once (no healthcheck). Calls are recorded in Log. Like the Docker
// runtime, it keeps the owner labels of what it creates and refuses to change an
// object that engine.CheckOwner refuses.
type Runtime struct {
	mu         sync.Mutex
	containers map[string]plan.Replica       // by name
	inits      map[string]plan.InitContainer // by name
	initImage  map[string]string             // image ID by init container name
	// listed holds, by container ID, the state the list shows for a
	// container whose exit it has not caught up with yet (ExitUnlisted).
	listed map[string]string
	// jobs holds the labels of the containers created as a compose job's
	// (io.ostset.job), by name: Observe reports them as Foreign, Job.
	jobs    map[string]map[string]string
	volumes map[string]plan.Volume
	nextID  int
	Log     []string
	// Created holds the spec of every replica created, in order.
	Created []plan.ReplicaSpec
	// Unhealthy lists image IDs whose containers never pass their healthcheck.
	Unhealthy map[string]bool
	// Starting lists image IDs whose containers the engine keeps "starting"
	// (its healthcheck has not run yet, or never runs): only ostset's probe
	// can make them ready (see probe.go).
	Starting map[string]bool
	// Crashing lists image IDs whose containers exit as soon as they start.
	Crashing map[string]bool
	// ImageVolumesOf holds the VOLUME mount points of images, by image ID.
	ImageVolumesOf map[string][]string
	// ImagePortsOf holds the EXPOSEd ports of images ("6379/tcp"), by image ID.
	ImagePortsOf map[string][]string
	// FailRemove makes removing the named container fail once.
	FailRemove string
	// FailPreStop makes removing the named containers report a pre_stop hook
	// that failed (*plan.PreStopError), once each is removed.
	FailPreStop map[string]bool
	// FailRemoveVolume makes removing the named volume fail once.
	FailRemoveVolume string
	// OnRemove, when set, is called with the name of each replica removed.
	OnRemove func(name string)
	// OnStop, when set, is called with the name of each replica stopped.
	OnStop func(name string)
	// FailCreate makes the n-th CreateReplica call fail (1-based; 0: never).
	FailCreate int
	// FailStart makes the n-th CreateReplica call fail after it made the
	// replica's volumes, as a start that the engine refuses.
	FailStart int
	// Refuse makes every create of the named containers fail with the given
	// words as an *engine.PermanentError, as the engine refuses a replica
	// whose host port another container holds.
	Refuse map[string]string
	// RemoveNetworkErr is what RemoveNetwork returns.
	RemoveNetworkErr error
	// NetworkLabels holds the networks EnsureNetwork made, with their labels.
	NetworkLabels map[string]map[string]string
	// NetworksRemoved names the networks RemoveNetwork was called for, in order.
	NetworksRemoved []string
	// Foreign are containers without the set's labels that Observe reports.
	Foreign []plan.Foreign
	creates int
	// Local maps the image references present locally to their IDs. While it
	// is nil, every reference is present with the ID "sha256:<ref>".
	Local map[string]string
	// Registry maps the references a pull finds to the image ID it brings; a
	// pull of any other reference fails as a registry answers an unknown tag.
	Registry map[string]string
	// JobExit is the code a replica container exits with when WaitExit waits
	// for it, by name (default 0).
	JobExit map[string]int
	// InitExit is the code init containers exit with at once, by image ID
	// (default 0), unless InitHang holds their image ID: those run until
	// FinishInit.
	InitExit map[string]int
	InitHang map[string]bool
	// InitOutput is what LogTail returns for init containers, by image ID.
	InitOutput map[string][]string
	// Output is what LogTail returns for replica containers, by name.
	Output map[string][]string
	// lostStart holds the IDs of containers whose start the engine lost
	// (see LoseStart).
	lostStart map[string]bool

	// ostset's probes (probe.go)
	passing        map[string]bool
	noEngineChecks bool
	probes         map[string]int
	inFlight       map[string]int
	mostInFlight   int
}

// New returns an empty runtime.
func New() *Runtime {
	return &Runtime{containers: map[string]plan.Replica{}, inits: map[string]plan.InitContainer{}, initImage: map[string]string{}, volumes: map[string]plan.Volume{}}
}

func (r *Runtime) record(format string, args ...any) {
	r.Log = append(r.Log, fmt.Sprintf(format, args...))
}

// Observe implements engine.Runtime.
func (r *Runtime) Observe(_ context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := plan.Observed{Foreign: slices.Clone(r.Foreign)}
	for _, c := range r.containers {
		if _, job := r.jobs[c.Name]; job {
			o.Foreign = append(o.Foreign, plan.Foreign{ID: c.ID, Name: c.Name, Owner: set, Job: true})
			continue
		}
		if st, lag := r.listed[c.ID]; lag && !slices.Contains(opts.Died, c.ID) {
			c.State = st // the list has not caught up, and no inspect was asked for
		}
		o.Replicas = append(o.Replicas, c)
	}
	slices.SortFunc(o.Replicas, func(a, b plan.Replica) int { return a.Ordinal - b.Ordinal })
	for _, c := range r.inits {
		o.Inits = append(o.Inits, c)
	}
	slices.SortFunc(o.Inits, func(a, b plan.InitContainer) int {
		if a.Ordinal != b.Ordinal {
			return a.Ordinal - b.Ordinal
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, v := range r.volumes {
		o.Volumes = append(o.Volumes, v)
	}
	slices.SortFunc(o.Volumes, func(a, b plan.Volume) int { return strings.Compare(a.Name, b.Name) })
	return o, nil
}

// EnsureNetwork implements engine.Runtime.
// It keeps the labels of the networks it creates (NetworkLabels).
func (r *Runtime) EnsureNetwork(_ context.Context, name string, labels map[string]string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.NetworkLabels[name]; !ok {
		if r.NetworkLabels == nil {
			r.NetworkLabels = map[string]map[string]string{}
		}
		r.NetworkLabels[name] = maps.Clone(labels)
	}
	return "net", nil
}

// Labelled implements engine.Runtime: the job containers and the networks
// it made with the label.
func (r *Runtime) Labelled(_ context.Context, key, value string) (engine.Labelled, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out engine.Labelled
	for name, labels := range r.jobs {
		if c := r.containers[name]; labels[key] == value {
			out.Jobs = append(out.Jobs, engine.JobContainer{Set: labels[plan.LabelSet], ID: c.ID, Name: name, Owner: c.Owner})
		}
	}
	for name, labels := range r.NetworkLabels {
		if labels[key] == value {
			out.Networks = append(out.Networks, name)
		}
	}
	slices.SortFunc(out.Jobs, func(a, b engine.JobContainer) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(out.Networks)
	return out, nil
}

// RemoveNetwork implements engine.Runtime. It records the call in
// NetworksRemoved, removes nothing and returns RemoveNetworkErr.
func (r *Runtime) RemoveNetwork(_ context.Context, name string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.NetworksRemoved = append(r.NetworksRemoved, name)
	return false, r.RemoveNetworkErr
}

// CreateReplica implements engine.Runtime.
func (r *Runtime) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	if err := ctx.Err(); err != nil { // as the Docker client refuses a call on an ended context
		return engine.CreateResult{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.creates++
	if r.creates == r.FailCreate {
		r.record("create %s failed", spec.Name)
		return engine.CreateResult{}, fmt.Errorf("%s: injected failure", spec.Name)
	}
	if why, ok := r.Refuse[spec.Name]; ok {
		r.record("create %s refused", spec.Name)
		return engine.CreateResult{}, &engine.PermanentError{Replica: spec.Name, Err: fmt.Errorf("%s: start: %s", spec.Name, why)}
	}
	_, taken := r.containers[spec.Name]
	if _, init := r.inits[spec.Name]; taken || init {
		return engine.CreateResult{}, fmt.Errorf("%s: name in use", spec.Name)
	}
	var made []string
	for _, v := range spec.Volumes {
		if _, ok := r.volumes[v.Name]; !ok {
			made = append(made, v.Name)
		}
	}
	reused, err := r.ensureVolumes(ctx, spec)
	if err != nil {
		return engine.CreateResult{}, err
	}
	if r.creates == r.FailStart {
		r.record("start %s failed", spec.Name)
		return engine.CreateResult{CreatedVolumes: made}, fmt.Errorf("%s: start: injected failure", spec.Name)
	}
	r.nextID++
	id := fmt.Sprintf("c%d", r.nextID)
	if init := spec.Labels[plan.LabelInit]; init != "" {
		c := plan.InitContainer{ID: id, Name: spec.Name, Ordinal: spec.Ordinal, Init: init, Revision: spec.Revision,
			State: plan.StateExited, ExitCode: r.InitExit[spec.Image], Created: time.Now(), Owner: plan.OwnerOf(spec.Labels)}
		if r.InitHang[spec.Image] {
			c.State, c.ExitCode = plan.StateRunning, 0
		}
		r.inits[spec.Name] = c
		r.initImage[spec.Name] = spec.Image
		r.record("create-init %s %s", spec.Name, spec.Revision)
		return engine.CreateResult{ID: id, ReusedVolumes: reused}, nil
	}
	c := plan.Replica{ID: id, Name: spec.Name, Ordinal: spec.Ordinal, Revision: spec.Revision,
		State: plan.StateRunning, Created: time.Now(), Owner: plan.OwnerOf(spec.Labels), Networks: networks(spec)}
	if _, job := spec.Labels[plan.LabelJob]; job {
		if r.jobs == nil {
			r.jobs = map[string]map[string]string{}
		}
		r.jobs[spec.Name] = maps.Clone(spec.Labels)
	}
	if r.Unhealthy[spec.Image] {
		c.Health = plan.HealthUnhealthy
	}
	if r.Starting[spec.Image] {
		c.Health, c.Healthcheck, c.StartedAt = plan.HealthStarting, startingCheck(spec), time.Now()
	}
	if r.Crashing[spec.Image] {
		c.State = plan.StateExited
	}
	r.containers[spec.Name] = c
	r.Created = append(r.Created, spec)
	r.record("create %s %s", spec.Name, spec.Revision)
	return engine.CreateResult{ID: id, ReusedVolumes: reused}, nil
}

// ensureVolumes creates the spec's volumes that do not exist and returns those
// that did, refusing another state directory's.
func (r *Runtime) ensureVolumes(ctx context.Context, spec plan.ReplicaSpec) ([]plan.Volume, error) {
	var reused []plan.Volume
	for _, v := range spec.Volumes {
		old, ok := r.volumes[v.Name]
		if !ok {
			continue
		}
		if old.Owner.ID != plan.OwnerOf(v.Labels).ID {
			if err := engine.CheckOwner(ctx, old.Owner); err != nil {
				return nil, fmt.Errorf("%s: volume %s: %w", spec.Name, v.Name, err)
			}
		}
		reused = append(reused, old)
	}
	for _, v := range spec.Volumes {
		if _, ok := r.volumes[v.Name]; !ok {
			r.volumes[v.Name] = plan.Volume{Name: v.Name, Ordinal: spec.Ordinal, Created: time.Now(), Owner: plan.OwnerOf(v.Labels)}
		}
	}
	return reused, nil
}

// StartReplica implements engine.Runtime.
func (r *Runtime) StartReplica(ctx context.Context, _, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			if err := engine.CheckOwner(ctx, c.Owner); err != nil {
				return fmt.Errorf("refusing to start container %s: %w", name, err)
			}
			if r.lostStart[id] {
				r.record("start %s refused: task already exists", name)
				return &engine.LostStartError{Replica: name, Err: fmt.Errorf("%s: start: failed to create task for container: task %s: already exists: unknown", name, id)}
			}
			c.State = plan.StateRunning
			r.containers[name] = c
			r.record("start %s", name)
		}
	}
	return nil
}

// ConnectNetworks implements engine.Runtime.
func (r *Runtime) ConnectNetworks(ctx context.Context, _, id string, joins []plan.NetworkJoin) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID != id {
			continue
		}
		if err := engine.CheckOwner(ctx, c.Owner); err != nil {
			return fmt.Errorf("refusing to connect container %s: %w", name, err)
		}
		for _, n := range joins {
			if !slices.Contains(c.Networks, n.Name) {
				c.Networks = append(slices.Clone(c.Networks), n.Name)
				r.record("connect %s %s", name, n.Name)
			}
		}
		r.containers[name] = c
	}
	return nil
}

// Disconnect takes a replica off a network, as docker network disconnect
// would, behind the engine's back.
func (r *Runtime) Disconnect(name, network string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.Networks = slices.DeleteFunc(slices.Clone(c.Networks), func(n string) bool { return n == network })
	r.containers[name] = c
}

// StopReplica implements engine.Runtime: the container exits and is kept.
func (r *Runtime) StopReplica(ctx context.Context, _, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			if err := engine.CheckOwner(ctx, c.Owner); err != nil {
				return fmt.Errorf("refusing to stop container %s: %w", name, err)
			}
			if r.OnStop != nil {
				r.OnStop(name)
			}
			c.State = plan.StateExited
			r.containers[name] = c
			r.record("stop %s", name)
		}
	}
	return nil
}

// RemoveReplica implements engine.Runtime.
func (r *Runtime) RemoveReplica(ctx context.Context, _, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			if err := engine.CheckOwner(ctx, c.Owner); err != nil {
				return fmt.Errorf("refusing to remove container %s: %w", name, err)
			}
			if name == r.FailRemove {
				r.FailRemove = ""
				return fmt.Errorf("remove %s: injected failure", name)
			}
			delete(r.containers, name)
			delete(r.jobs, name)
			r.record("remove %s", name)
			if r.OnRemove != nil {
				r.OnRemove(name)
			}
			if r.FailPreStop[name] {
				return &plan.PreStopError{Err: fmt.Errorf("%s: pre_stop hook 0 (drain): exited with status 1", name)}
			}
		}
	}
	for name, c := range r.inits {
		if c.ID == id {
			if err := engine.CheckOwner(ctx, c.Owner); err != nil {
				return fmt.Errorf("refusing to remove container %s: %w", name, err)
			}
			if name == r.FailRemove {
				r.FailRemove = ""
				return fmt.Errorf("remove %s: injected failure", name)
			}
			delete(r.inits, name)
			r.record("remove-init %s", name)
		}
	}
	return nil
}

// LogTail implements engine.Runtime for init containers: their InitOutput, or
// a line saying how they exited.
func (r *Runtime) LogTail(_ context.Context, _, id string, n int) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.inits {
		if c.ID != id {
			continue
		}
		lines := r.InitOutput[r.initImage[c.Name]]
		if lines == nil {
			lines = []string{fmt.Sprintf("%s exited with code %d", c.Name, c.ExitCode)}
		}
		return lines[max(0, len(lines)-n):], nil
	}
	for name, c := range r.containers {
		if c.ID == id {
			lines := r.Output[name]
			return lines[max(0, len(lines)-n):], nil
		}
	}
	return nil, fmt.Errorf("container %s: not found", id)
}

// FinishInit makes a running init container exit with code.
func (r *Runtime) FinishInit(name string, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.inits[name]; ok {
		c.State, c.ExitCode = plan.StateExited, code
		r.inits[name] = c
	}
}

// Inits lists the init containers' names.
func (r *Runtime) Inits() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for name := range r.inits {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Replicas lists the replica containers' names.
func (r *Runtime) Replicas() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for name := range r.containers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// RemoveVolume implements engine.Runtime.
func (r *Runtime) RemoveVolume(ctx context.Context, _, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.volumes[name]; ok {
		if err := engine.CheckOwner(ctx, v.Owner); err != nil {
			return fmt.Errorf("refusing to remove volume %s: %w", name, err)
		}
	}
	if name == r.FailRemoveVolume {
		r.FailRemoveVolume = ""
		r.record("remove volume %s failed", name)
		return fmt.Errorf("%s: injected failure", name)
	}
	delete(r.volumes, name)
	r.record("remove volume %s", name)
	return nil
}

// ImageConfig implements engine.Runtime: ImageVolumesOf[imageID] and
// ImagePortsOf[imageID].
func (r *Runtime) ImageConfig(_ context.Context, imageID string) (engine.ImageConfig, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return engine.ImageConfig{Volumes: r.ImageVolumesOf[imageID], ExposedPorts: r.ImagePortsOf[imageID]}, nil
}

// EnsureImage implements engine.Runtime on Local and Registry. A pull is
// recorded in Log as "pull <ref>" and reported to progress as one layer.
func (r *Runtime) EnsureImage(_ context.Context, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Local == nil {
		return "sha256:" + ref, nil
	}
	id, present := r.Local[ref]
	pull, err := engine.PullNeeded(policy, present)
	if errors.Is(err, engine.ErrNeverPull) {
		return "", &engine.ImageError{Image: ref, Err: err}
	}
	if err != nil || !pull {
		return id, err
	}
	if progress == nil {
		progress = func(engine.PullProgress) {}
	}
	progress(engine.PullProgress{Image: ref, State: engine.PullStarted})
	r.record("pull %s", ref)
	remote, ok := r.Registry[ref]
	if !ok {
		return "", &engine.ImageError{Image: ref, Err: errors.New("manifest unknown")}
	}
	if remote == id {
		progress(engine.PullProgress{Image: ref, State: engine.PullUpToDate})
		return id, nil
	}
	progress(engine.PullProgress{Image: ref, Layer: remote, State: engine.LayerComplete, Current: 1, Total: 1})
	r.Local[ref] = remote
	return remote, nil
}

// Watch implements engine.Runtime; this runtime never sends events, so the loop
// relies on its poll interval.
func (r *Runtime) Watch(ctx context.Context, _ string) (<-chan struct{}, error) {
	ch := make(chan struct{})
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}

// WaitExit implements engine.Runtime: a replica container runs until it is
// waited for, then exits with the code JobExit gives its name (default 0).
func (r *Runtime) WaitExit(_ context.Context, _, id string) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			c.State = plan.StateExited
			r.containers[name] = c
			code := r.JobExit[name]
			r.record("exit %s %d", name, code)
			return code, nil
		}
	}
	return 0, fmt.Errorf("container %s: not found", id)
}

// Exit makes a container exit, as a crash would.
func (r *Runtime) Exit(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.State = plan.StateExited
	r.containers[name] = c
}

// LoseStart leaves a container created and never run, with a start the
// engine lost: every start of it fails as the Docker runtime reports it (an
// *engine.LostStartError), as after the engine was killed during its start.
// It returns the container's ID.
func (r *Runtime) LoseStart(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.State, c.Health = plan.StateCreated, ""
	r.containers[name] = c
	if r.lostStart == nil {
		r.lostStart = map[string]bool{}
	}
	r.lostStart[c.ID] = true
	return c.ID
}

// SetHealth sets a replica's health status, as its healthcheck would.
func (r *Runtime) SetHealth(name, health string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.Health = health
	r.containers[name] = c
}

// ExitUnlisted makes a container exit as Docker's die event says, while
// Observe goes on listing it in its former state, as Docker's container list
// does for a moment after the event, unless the observation names it in
// ObserveOptions.Died (an inspect, which has the exit). It returns the
// container's ID.
func (r *Runtime) ExitUnlisted(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	if r.listed == nil {
		r.listed = map[string]string{}
	}
	r.listed[c.ID] = c.State
	c.State = plan.StateExited
	r.containers[name] = c
	return c.ID
}

// Destroy removes a replica as docker rm -f would, behind the engine's back,
// and returns its ID.
func (r *Runtime) Destroy(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.containers[name].ID
	delete(r.containers, name)
	return id
}

// Add puts a container in the runtime as it is, as another process would have
// made it (another state directory's replica, say).
func (r *Runtime) Add(c plan.Replica) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.containers[c.Name] = c
}

// AddInit puts an init container in the runtime as it is.
func (r *Runtime) AddInit(c plan.InitContainer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inits[c.Name] = c
}

// AddVolume puts a volume in the runtime as it is.
func (r *Runtime) AddVolume(v plan.Volume) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.volumes[v.Name] = v
}

// networks are the networks a replica created from spec is on.
func networks(spec plan.ReplicaSpec) []string {
	out := []string{spec.Network}
	for _, n := range spec.OtherNetworks {
		out = append(out, n.Name)
	}
	return out
}
