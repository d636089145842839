package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/prober"
	"github.com/ostset/ostset/engine/state"
)

// probedSet is an OrderedReady set of n whose replicas the fake engine keeps
// "starting" (its own healthcheck has not run yet), driven by a controller
// with a prober and no polling: only an event or the prober wakes its loop.
func probedSet(t *testing.T, n int, hc *config.Healthcheck) (*engine.Controller, *enginetest.Runtime) {
	t.Helper()
	rt := enginetest.New()
	rt.Starting = map[string]bool{"sha256:v1": true}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: time.Hour}
	c.Prober = prober.New(rt)
	c.Prober.WhileStarting = true
	t.Cleanup(c.Prober.Close)
	s := config.Set{Name: "web", Replicas: &n, Template: config.Template{Image: "v1", Healthcheck: hc}}
	s.ApplyDefaults()
	storeSpec(t, c.Store, s)
	return c, rt
}

func created(rt *enginetest.Runtime) []string {
	var names []string
	for _, s := range rt.Created {
		names = append(names, s.Name)
	}
	return names
}

// While the engine still says "starting", ostset's own probe of the
// healthcheck makes each replica ready, so an OrderedReady rollout goes on
// at once, in order, and the status says where readiness came from. No
// probe runs once one has passed (the engine's check decides from then on),
// and never two at once on one container.
func TestProberMakesStartingReplicasReadyInOrder(t *testing.T) {
	c, rt := probedSet(t, 3, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(10 * time.Second)})
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		rt.SetPassing(name, true)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatalf("converge: %v (created %v)", err, created(rt))
	}
	if got := created(rt); !slices.Equal(got, []string{"web-0", "web-1", "web-2"}) {
		t.Fatalf("created %v, want web-0, web-1, web-2 in order", got)
	}
	s, _, err := c.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range s.Containers {
		if !cs.Ready || cs.Health != "starting" || cs.ReadyBy != "probe" {
			t.Errorf("%s: ready %v, health %q, readyBy %q; want ready by probe while starting", cs.Name, cs.Ready, cs.Health, cs.ReadyBy)
		}
	}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if n, most := rt.Probes(name); n != 1 || most != 1 {
			t.Errorf("%s: %d probes, at most %d at once; want 1 probe (none after it passed)", name, n, most)
		}
	}
	// Once the engine's own check passes, the record of the probe is dropped.
	rt.SetHealthOf("web-0", "healthy")
	if _, err := c.Pass(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.Store.Load("web"); len(st.Probed) != 2 {
		t.Errorf("probed records %v, want web-1's and web-2's only", st.Probed)
	}
}

// A replica the pass created is probed from then on, not from the next
// pass's observation: one pass alone leads to its first probe.
func TestCreatedReplicaIsProbedBeforeTheNextObservation(t *testing.T) {
	c, rt := probedSet(t, 1, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(10 * time.Second)})
	rt.SetPassing("web-0", true)
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if n, _ := rt.Probes("web-0"); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("web-0 not probed after the pass that created it (created %v)", created(rt))
		}
	}
}

// A replica whose probe never passes is never ready, and the next ordinal
// is not created; the probes run one at a time, at a growing interval.
func TestReplicaWhoseProbeNeverPassesHoldsTheRollout(t *testing.T) {
	c, rt := probedSet(t, 3, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(10 * time.Second)})
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if err := c.Converge(ctx, "web"); err == nil {
		t.Fatal("converge succeeded with a replica that never passes its healthcheck")
	}
	if got := created(rt); !slices.Equal(got, []string{"web-0"}) {
		t.Fatalf("created %v, want web-0 only", got)
	}
	s, _, err := c.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.ReadyReplicas != 0 || s.Containers[0].ReadyBy != "" {
		t.Errorf("status %+v, want no ready replica", s.Containers)
	}
	// 100, 200, 250, 250 ms gaps: about 5 probes in 700 ms, not one every few ms.
	if n, most := rt.Probes("web-0"); n < 2 || n > 8 || most != 1 {
		t.Errorf("%d probes, at most %d at once; want 2-8 one at a time", n, most)
	}
}

// Without a healthcheck there is nothing to probe.
func TestNoProbeWithoutAHealthcheck(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	c.Prober = prober.New(rt)
	c.Prober.WhileStarting = true
	defer c.Prober.Close()
	converge(t, c)
	if n, _ := rt.Probes("web-0"); n != 0 || c.Prober.InFlight() != 0 {
		t.Errorf("%d probes, %d probers; want none", n, c.Prober.InFlight())
	}
}

// Where the engine runs no healthchecks (Podman without systemd), the
// probes go on at the healthcheck's interval and are the readiness: retries
// failures in a row make a ready replica not ready again.
func TestProberIsTheHealthcheckWhereTheEngineRunsNone(t *testing.T) {
	c, rt := probedSet(t, 1, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(20 * time.Millisecond), Retries: 2})
	rt.SetEngineChecks(false)
	rt.SetPassing("web-0", true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	rt.SetPassing("web-0", false)
	for {
		if _, err := c.Pass(ctx, "web"); err != nil {
			t.Fatal(err)
		}
		s, _, err := c.Status(ctx, "web")
		if err != nil {
			t.Fatal(err)
		}
		if s.ReadyReplicas == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the replica stayed ready with its probe failing")
		case <-c.Prober.Wake("web"):
		}
	}
	if n, _ := rt.Probes("web-0"); n < 3 {
		t.Errorf("%d probes, want the first pass and at least 2 failures", n)
	}
}

// A replica that restarts in place (same container, its restart policy)
// after its probe passed is not ready on that old verdict: it is probed
// anew.
func TestProbeOfAnEarlierRunDoesNotCount(t *testing.T) {
	c, rt := probedSet(t, 1, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(10 * time.Second)})
	rt.SetPassing("web-0", true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	rt.SetPassing("web-0", false)
	time.Sleep(2 * time.Millisecond) // a later start time than the probe's verdict
	rt.RestartStarting("web-0")
	if _, err := c.Pass(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	s, _, err := c.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.ReadyReplicas != 0 {
		t.Fatalf("ready on the probe of its earlier run: %+v", s.Containers)
	}
	if n, _ := rt.Probes("web-0"); n < 2 {
		t.Errorf("%d probes: the new run was not probed", n)
	}
}

// Another process (a later command, the daemon) that drives the set takes
// the recorded probe passes as they are: the replicas stay ready, and where
// the engine runs healthchecks they are not probed again.
func TestAnotherProcessKeepsTheProbesVerdicts(t *testing.T) {
	c, rt := probedSet(t, 2, &config.Healthcheck{Test: []string{"CMD", "check"}, Interval: config.Duration(10 * time.Second)})
	for _, n := range []string{"web-0", "web-1"} {
		rt.SetPassing(n, true)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	other := &engine.Controller{Runtime: rt, Store: c.Store, Poll: time.Hour, Prober: prober.New(rt)}
	other.Prober.WhileStarting = true
	defer other.Prober.Close()
	for _, n := range []string{"web-0", "web-1"} {
		rt.SetPassing(n, false) // a new probe would fail now
	}
	if _, err := other.Pass(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	s, _, err := other.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.ReadyReplicas != 2 {
		t.Fatalf("%d ready after another process's pass, want 2: %+v", s.ReadyReplicas, s.Containers)
	}
	for _, n := range []string{"web-0", "web-1"} {
		if got, _ := rt.Probes(n); got != 1 {
			t.Errorf("%s probed %d times, want once (by the first process)", n, got)
		}
	}
}
