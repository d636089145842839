// Package enginetest holds an in-memory engine.Runtime for tests of the
// controller loop.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
)

// Runtime is an in-memory container engine. New containers start running and
// are ready at once (no healthcheck). Calls are recorded in Log.
type Runtime struct {
	mu         sync.Mutex
	containers map[string]engine.Replica // by name
	volumes    map[string]engine.Volume
	nextID     int
	Log        []string
	// Unhealthy lists image IDs whose containers never pass their healthcheck.
	Unhealthy map[string]bool
	// Crashing lists image IDs whose containers exit as soon as they start.
	Crashing map[string]bool
	// FailRemove makes removing the named container fail once.
	FailRemove string
	// FailCreate makes the n-th CreateReplica call fail (1-based; 0: never).
	FailCreate int
	creates    int
	// Local maps the image references present locally to their IDs. While it
	// is nil, every reference is present with the ID "sha256:<ref>".
	Local map[string]string
	// Registry maps the references a pull finds to the image ID it brings; a
	// pull of any other reference fails as a registry answers an unknown tag.
	Registry map[string]string
}

// New returns an empty runtime.
func New() *Runtime {
	return &Runtime{containers: map[string]engine.Replica{}, volumes: map[string]engine.Volume{}}
}

func (r *Runtime) record(format string, args ...any) {
	r.Log = append(r.Log, fmt.Sprintf(format, args...))
}

// Observe implements engine.Runtime.
func (r *Runtime) Observe(_ context.Context, set string, _ engine.ObserveOptions) (engine.Observed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var o engine.Observed
	for _, c := range r.containers {
		o.Replicas = append(o.Replicas, c)
	}
	slices.SortFunc(o.Replicas, func(a, b engine.Replica) int { return a.Ordinal - b.Ordinal })
	for _, v := range r.volumes {
		o.Volumes = append(o.Volumes, v)
	}
	return o, nil
}

// EnsureNetwork implements engine.Runtime.
func (r *Runtime) EnsureNetwork(context.Context, string) (string, error) { return "net", nil }

// RemoveNetwork implements engine.Runtime.
func (r *Runtime) RemoveNetwork(context.Context, string) (bool, error) { return false, nil }

// CreateReplica implements engine.Runtime.
func (r *Runtime) CreateReplica(_ context.Context, spec engine.ReplicaSpec) (engine.CreateResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.creates++
	if r.creates == r.FailCreate {
		r.record("create %s failed", spec.Name)
		return engine.CreateResult{}, fmt.Errorf("%s: injected failure", spec.Name)
	}
	if _, taken := r.containers[spec.Name]; taken {
		return engine.CreateResult{}, fmt.Errorf("%s: name in use", spec.Name)
	}
	r.nextID++
	id := fmt.Sprintf("c%d", r.nextID)
	c := engine.Replica{ID: id, Name: spec.Name, Ordinal: spec.Ordinal, Revision: spec.Revision,
		State: engine.StateRunning, Created: time.Now()}
	if r.Unhealthy[spec.Image] {
		c.Health = engine.HealthUnhealthy
	}
	if r.Crashing[spec.Image] {
		c.State = engine.StateExited
	}
	r.containers[spec.Name] = c
	var reused []engine.Volume
	for _, v := range spec.Volumes {
		if old, ok := r.volumes[v.Name]; ok {
			reused = append(reused, old)
			continue
		}
		r.volumes[v.Name] = engine.Volume{Name: v.Name, Ordinal: spec.Ordinal, Created: time.Now()}
	}
	r.record("create %s %s", spec.Name, spec.Revision)
	return engine.CreateResult{ID: id, ReusedVolumes: reused}, nil
}

// StartReplica implements engine.Runtime.
func (r *Runtime) StartReplica(_ context.Context, _, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			c.State = engine.StateRunning
			r.containers[name] = c
			r.record("start %s", name)
		}
	}
	return nil
}

// RemoveReplica implements engine.Runtime.
func (r *Runtime) RemoveReplica(_ context.Context, _, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, c := range r.containers {
		if c.ID == id {
			if name == r.FailRemove {
				r.FailRemove = ""
				return fmt.Errorf("remove %s: injected failure", name)
			}
			delete(r.containers, name)
			r.record("remove %s", name)
		}
	}
	return nil
}

// RemoveVolume implements engine.Runtime.
func (r *Runtime) RemoveVolume(_ context.Context, _, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.volumes, name)
	r.record("remove volume %s", name)
	return nil
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

// Exit makes a container exit, as a crash would.
func (r *Runtime) Exit(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.State = engine.StateExited
	r.containers[name] = c
}
