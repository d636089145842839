package main

import (
	"context"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
)

// setsRuntime is an in-memory runtime for several sets at once: one
// enginetest.Runtime per set (each holds one set's containers), with the
// creates of all of them in one list, in order.
type setsRuntime struct {
	mu      sync.Mutex
	sets    map[string]*enginetest.Runtime
	Created []plan.ReplicaSpec
}

func newSetsRuntime() *setsRuntime { return &setsRuntime{sets: map[string]*enginetest.Runtime{}} }

func (r *setsRuntime) of(set string) *enginetest.Runtime {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sets[set] == nil {
		r.sets[set] = enginetest.New()
	}
	return r.sets[set]
}

func (r *setsRuntime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	return r.of(set).Observe(ctx, set, opts)
}

func (r *setsRuntime) EnsureNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	return r.of("").EnsureNetwork(ctx, name, labels)
}

func (r *setsRuntime) Labelled(ctx context.Context, key, value string) (engine.Labelled, error) {
	r.mu.Lock()
	sets := make([]*enginetest.Runtime, 0, len(r.sets))
	for _, s := range r.sets {
		sets = append(sets, s)
	}
	r.mu.Unlock()
	var out engine.Labelled
	for _, s := range sets {
		l, err := s.Labelled(ctx, key, value)
		if err != nil {
			return out, err
		}
		out.Jobs = append(out.Jobs, l.Jobs...)
		out.Networks = append(out.Networks, l.Networks...)
	}
	return out, nil
}

func (r *setsRuntime) RemoveNetwork(ctx context.Context, name string) (bool, error) {
	return r.of("").RemoveNetwork(ctx, name)
}

func (r *setsRuntime) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	res, err := r.of(spec.Set).CreateReplica(ctx, spec)
	if err == nil {
		r.mu.Lock()
		r.Created = append(r.Created, spec)
		r.mu.Unlock()
	}
	return res, err
}

func (r *setsRuntime) StartReplica(ctx context.Context, set, id string) error {
	return r.of(set).StartReplica(ctx, set, id)
}

func (r *setsRuntime) ConnectNetworks(ctx context.Context, set, id string, joins []plan.NetworkJoin) error {
	return r.of(set).ConnectNetworks(ctx, set, id, joins)
}

func (r *setsRuntime) StopReplica(ctx context.Context, set, id string, grace time.Duration) error {
	return r.of(set).StopReplica(ctx, set, id, grace)
}

func (r *setsRuntime) RemoveReplica(ctx context.Context, set, id string, grace time.Duration) error {
	return r.of(set).RemoveReplica(ctx, set, id, grace)
}

func (r *setsRuntime) RemoveVolume(ctx context.Context, set, name string) error {
	return r.of(set).RemoveVolume(ctx, set, name)
}

func (r *setsRuntime) EnsureImage(ctx context.Context, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	return r.of("").EnsureImage(ctx, ref, policy, progress)
}

func (r *setsRuntime) ImageConfig(ctx context.Context, imageID string) (engine.ImageConfig, error) {
	return r.of("").ImageConfig(ctx, imageID)
}

func (r *setsRuntime) WaitExit(ctx context.Context, set, id string) (int, error) {
	return r.of(set).WaitExit(ctx, set, id)
}

func (r *setsRuntime) LogTail(ctx context.Context, set, id string, n int) ([]string, error) {
	return r.of(set).LogTail(ctx, set, id, n)
}

func (r *setsRuntime) Watch(ctx context.Context, set string) (<-chan struct{}, error) {
	return r.of(set).Watch(ctx, set)
}
