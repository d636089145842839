// Package enginetest holds an in-memory engine.Runtime for tests of the
// controller loop.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
)

// Runtime is an in-memory container engine. New containers start running and
// are ready at once (no healthcheck). Calls are recorded in Log. Like the Docker
// runtime, it keeps the owner labels of what it creates and refuses to change an
// object that engine.CheckOwner refuses.
type Runtime struct {
	mu         sync.Mutex
	containers map[string]engine.Replica // by name
	volumes    map[string]engine.Volume
	nextID     int
	Log        []string
	// Created holds the spec of every replica created, in order.
	Created []engine.ReplicaSpec
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
	slices.SortFunc(o.Volumes, func(a, b engine.Volume) int { return strings.Compare(a.Name, b.Name) })
	return o, nil
}

// EnsureNetwork implements engine.Runtime.
func (r *Runtime) EnsureNetwork(context.Context, string) (string, error) { return "net", nil }

// RemoveNetwork implements engine.Runtime.
func (r *Runtime) RemoveNetwork(context.Context, string) (bool, error) { return false, nil }

// CreateReplica implements engine.Runtime.
func (r *Runtime) CreateReplica(ctx context.Context, spec engine.ReplicaSpec) (engine.CreateResult, error) {
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
		State: engine.StateRunning, Created: time.Now(), Owner: engine.OwnerOf(spec.Labels)}
	if r.Unhealthy[spec.Image] {
		c.Health = engine.HealthUnhealthy
	}
	if r.Crashing[spec.Image] {
		c.State = engine.StateExited
	}
	var reused []engine.Volume
	for _, v := range spec.Volumes {
		old, ok := r.volumes[v.Name]
		if !ok {
			continue
		}
		if old.Owner.ID != engine.OwnerOf(v.Labels).ID {
			if err := engine.CheckOwner(ctx, old.Owner); err != nil {
				return engine.CreateResult{}, fmt.Errorf("%s: volume %s: %w", spec.Name, v.Name, err)
			}
		}
		reused = append(reused, old)
	}
	r.containers[spec.Name] = c
	r.Created = append(r.Created, spec)
	for _, v := range spec.Volumes {
		if _, ok := r.volumes[v.Name]; !ok {
			r.volumes[v.Name] = engine.Volume{Name: v.Name, Ordinal: spec.Ordinal, Created: time.Now(), Owner: engine.OwnerOf(v.Labels)}
		}
	}
	r.record("create %s %s", spec.Name, spec.Revision)
	return engine.CreateResult{ID: id, ReusedVolumes: reused}, nil
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
			c.State = engine.StateRunning
			r.containers[name] = c
			r.record("start %s", name)
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
			r.record("remove %s", name)
		}
	}
	return nil
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

// Add puts a container in the runtime as it is, as another process would have
// made it (another state directory's replica, say).
func (r *Runtime) Add(c engine.Replica) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.containers[c.Name] = c
}

// AddVolume puts a volume in the runtime as it is.
func (r *Runtime) AddVolume(v engine.Volume) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.volumes[v.Name] = v
}
