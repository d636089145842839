package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
)

// The daemon picks up a set added to the store, heals it, and stops with ctx.
func TestRunAllConvergesNewSetsAndHeals(t *testing.T) {
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: engine.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.RunAll(ctx) }()

	apply(t, c.Store, 2, "v1")
	running := func() map[string]string { // name -> ID
		obs, _ := rt.Observe(ctx, "web", engine.ObserveOptions{})
		ids := map[string]string{}
		for _, r := range obs.Replicas {
			if r.State == engine.StateRunning {
				ids[r.Name] = r.ID
			}
		}
		return ids
	}
	awaitCondition(t, func() bool { return len(running()) == 2 })
	crashed := running()["web-1"]
	rt.Exit("web-1")
	awaitCondition(t, func() bool { id := running()["web-1"]; return id != "" && id != crashed })

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunAll: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunAll did not stop with its context")
	}
}

// awaitCondition polls cond until it holds, failing after a generous deadline.
func awaitCondition(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
