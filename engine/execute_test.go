package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// barrier is a runtime whose CreateReplica returns only once n creates are in
// flight together, or fails after a while (and is no longer in flight).
type barrier struct {
	engine.Runtime
	mu      sync.Mutex
	waiting int
	all     chan struct{}
	n       int
}

func (b *barrier) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	b.mu.Lock()
	b.waiting++
	if b.waiting == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return b.Runtime.CreateReplica(ctx, spec)
	case <-time.After(2 * time.Second):
		b.mu.Lock()
		defer b.mu.Unlock()
		err := fmt.Errorf("%s: only %d of %d creates in flight together", spec.Name, b.waiting, b.n)
		b.waiting--
		return engine.CreateResult{}, err
	}
}

// Parallel creates a set of 20 in one wave: no create waits for another.
func TestParallelCreatesEveryReplicaAtOnce(t *testing.T) {
	const n = 20
	rt := &barrier{Runtime: enginetest.New(), all: make(chan struct{}), n: n}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	s := config.Set{Name: "web", Replicas: ptr(n), PodManagementPolicy: config.Parallel, Template: config.Template{Image: "a"}}
	s.ApplyDefaults()
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
}
