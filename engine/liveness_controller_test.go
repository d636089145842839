package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/liveness"
	"github.com/ostset/ostset/engine/state"
)

// A controller with liveness probes restarts, in a pass, the replica whose
// liveness probe failed, in place (same container), records the restart in
// the set's state and events, and leaves the healthy replica alone; a
// process without the probes (status) sees the count.
func TestLivenessRestartsInAPass(t *testing.T) {
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 20 * time.Millisecond}
	changed := make(chan struct{}, 10)
	lv := liveness.New(rt, nil).Waking(func(string) { changed <- struct{}{} })
	t.Cleanup(lv.Close)
	c.Liveness = lv
	n := 2
	s := config.Set{Name: "web", Replicas: &n, Template: config.Template{Image: "v1",
		Liveness: &config.Healthcheck{Test: []string{"CMD", "alive"}, Interval: config.Duration(10 * time.Millisecond), Retries: 2}}}
	s.ApplyDefaults()
	storeSpec(t, c.Store, s)
	rt.SetPassing("web-0", true)
	rt.SetPassing("web-1", true)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	before, _, err := c.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	rt.SetPassing("web-1", false)
	select {
	case <-changed: // web-1's probe failed twice in a row
	case <-ctx.Done():
		t.Fatal("web-1's liveness probe never failed")
	}
	if _, err := c.Pass(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rt.Log, "restart web-1") {
		t.Fatalf("web-1 not restarted by the pass after its probe failed: %v", rt.Log)
	}
	rt.SetPassing("web-1", true)
	after, _, err := c.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	for i, cs := range after.Containers {
		want := []int{0, 1}[i]
		if cs.Restarts != want || cs.ID != before.Containers[i].ID {
			t.Errorf("%s: %d restarts, ID %s (was %s); want %d, the same container", cs.Name, cs.Restarts, cs.ID, before.Containers[i].ID, want)
		}
	}
	if slices.Contains(rt.Log, "restart web-0") {
		t.Errorf("the healthy replica was restarted: %v", rt.Log)
	}
	evs, _, err := c.Store.Events("web", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(evs, func(e state.Event) bool {
		return e.Replica == "web-1" && strings.HasPrefix(e.Message, "web-1: Liveness probe failed: not ready") && strings.HasSuffix(e.Message, ", restarting")
	}) {
		t.Errorf("no event says why web-1 restarted: %+v", evs)
	}
}
