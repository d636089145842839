package liveness

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// fakeClock is a clock that moves only when told (Advance).
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	changed chan struct{} // a waiter was added
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0, changed: make(chan struct{}, 100)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	c.changed <- struct{}{}
	return ch
}

// Advance moves the clock to the next waiter's time and fires the waiters due.
func (c *fakeClock) Advance(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		t.Fatal("nothing waits on the clock")
	}
	slices.SortFunc(c.waiters, func(a, b waiter) int { return a.at.Compare(b.at) })
	c.now = c.waiters[0].at
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// blockUntil waits until n goroutines wait on the clock.
func (c *fakeClock) blockUntil(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		got := len(c.waiters)
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("%d goroutines wait on the clock, want %d", got, n)
		}
	}
}

// fakeRuntime answers probes per container and test, and records restarts.
type fakeRuntime struct {
	mu       sync.Mutex
	pass     map[string]bool // "<id> <test>" → passes
	probes   []string        // "<id> <test>", in order
	restarts []string        // "<id> <grace>"
}

func (f *fakeRuntime) set(id, test string, pass bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pass[id+" "+test] = pass
}

func (f *fakeRuntime) ProbeHealth(_ context.Context, _, id string, hc plan.Healthcheck) (bool, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := id + " " + hc.Test[1]
	f.probes = append(f.probes, key)
	if f.pass[key] {
		return true, "", nil
	}
	return false, "HTTP 500 from " + id, nil
}

func (f *fakeRuntime) RestartReplica(_ context.Context, _, id string, grace time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restarts = append(f.restarts, fmt.Sprintf("%s %s", id, grace))
	return nil
}

func (f *fakeRuntime) restarted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.restarts)
}

func (f *fakeRuntime) probed(test string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.probes {
		if len(p) >= len(test) && p[len(p)-len(test):] == test {
			n++
		}
	}
	return n
}

// setWith is a set of two replicas at a revision with the given probes.
func setWith(startup, live *config.Healthcheck) (state.State, plan.Observed) {
	grace := 7
	st := state.State{
		Spec: config.Set{Name: "web", TerminationGracePeriodSeconds: &grace, Template: config.Template{Image: "x"}},
		Revisions: []state.Revision{{Name: "web-1", Spec: config.RevisionSpec{
			ServiceName: "web", Template: config.Template{Image: "x", Startup: startup, Liveness: live},
		}}},
	}
	obs := plan.Observed{Replicas: []plan.Replica{
		{ID: "c0", Name: "web-0", Ordinal: 0, Revision: "web-1", State: plan.StateRunning, Created: t0},
		{ID: "c1", Name: "web-1", Ordinal: 1, Revision: "web-1", State: plan.StateRunning, Created: t0},
	}}
	return st, obs
}

type harness struct {
	clock  *fakeClock
	rt     *fakeRuntime
	m      *Manager
	woken  chan string
	events []string
}

func newHarness(t *testing.T) *harness {
	h := &harness{clock: newFakeClock(), rt: &fakeRuntime{pass: map[string]bool{}}, woken: make(chan string, 100)}
	h.m = New(h.rt, h.clock).Waking(func(set string) { h.woken <- set })
	t.Cleanup(h.m.Close)
	return h
}

// pass runs Pass on a fresh copy of the observation, as a controller's pass does.
func (h *harness) pass(st *state.State, obs plan.Observed) plan.Observed {
	obs.Replicas = slices.Clone(obs.Replicas)
	h.m.Pass(context.Background(), st, &obs, func(_, msg string) { h.events = append(h.events, msg) })
	return obs
}

func (h *harness) waitWoken(t *testing.T) {
	t.Helper()
	select {
	case <-h.woken:
	case <-time.After(5 * time.Second):
		t.Fatal("no verdict changed")
	}
}

func unstarted(obs plan.Observed) []string {
	var out []string
	for _, r := range obs.Replicas {
		if r.Unstarted {
			out = append(out, r.Name)
		}
	}
	return out
}

// A replica whose liveness probe fails failureThreshold times in a row is
// restarted in place (the same container, with the set's grace period),
// counted and reported; a healthy one is left alone. A second failure soon
// after waits for the back-off, the replica not ready meanwhile.
func TestLivenessRestartsTheFailingReplicaOnly(t *testing.T) {
	h := newHarness(t)
	live := &config.Healthcheck{Test: []string{"CMD", "alive"}, Interval: config.Duration(time.Second), Retries: 3}
	st, obs := setWith(nil, live)
	h.rt.set("c0", "alive", true)
	h.pass(&st, obs)
	for range 2 { // probes at t0 (no delay), +1s, +2s
		h.clock.blockUntil(t, 2)
		h.clock.Advance(t)
	}
	h.waitWoken(t)
	if got := h.rt.probed("alive"); got < 5 {
		t.Fatalf("%d probes", got)
	}
	after := h.pass(&st, obs)
	if got := h.rt.restarted(); !slices.Equal(got, []string{"c1 7s"}) {
		t.Fatalf("restarts %v, want c1 with the grace period", got)
	}
	if want := "web-1: Liveness probe failed: HTTP 500 from c1, restarting"; !slices.Equal(h.events, []string{want}) {
		t.Errorf("events %q, want %q", h.events, want)
	}
	if rec := st.Liveness["c1"]; rec.Restarts != 1 || !rec.Restarted.Equal(h.clock.Now()) {
		t.Errorf("record %+v", rec)
	}
	if _, ok := st.Liveness["c0"]; ok {
		t.Error("the healthy replica has a record")
	}
	if got := unstarted(after); !slices.Equal(got, []string{"web-1"}) {
		t.Errorf("not ready after the restart: %v", got)
	}
	if after.Replicas[1].Restarts != 1 || after.Replicas[0].Restarts != 0 {
		t.Errorf("restarts marked %d, %d", after.Replicas[0].Restarts, after.Replicas[1].Restarts)
	}

	// The restarted container fails again 2 s later: the back-off (10 s after
	// the first restart) holds the second restart back.
	restarted := h.clock.Now()
	h.pass(&st, obs) // probing starts anew for c1
	for range 2 {    // c1 probed at once, +1s, +2s
		h.clock.blockUntil(t, 2)
		h.clock.Advance(t)
	}
	h.waitWoken(t)
	held := h.pass(&st, obs)
	if got := h.rt.restarted(); len(got) != 1 {
		t.Fatalf("restarted again within the back-off: %v", got)
	}
	if got := unstarted(held); !slices.Equal(got, []string{"web-1"}) {
		t.Errorf("a replica waiting for its restart counts as ready: %v", unstarted(held))
	}
	for h.clock.Now().Before(restarted.Add(10 * time.Second)) {
		h.clock.blockUntil(t, 2) // c0's probe and the back-off's wake-up
		h.clock.Advance(t)
	}
	h.waitWoken(t)
	h.pass(&st, obs)
	if got := h.rt.restarted(); len(got) != 2 || st.Liveness["c1"].Restarts != 2 {
		t.Fatalf("restarts %v, record %+v", got, st.Liveness["c1"])
	}
}

// While the startup probe has not passed the replica is not ready and its
// liveness probe is not run; once it passes it is recorded (so another
// process sees it) and not run again.
func TestStartupHoldsReadinessAndLiveness(t *testing.T) {
	h := newHarness(t)
	startup := &config.Healthcheck{Test: []string{"CMD", "started"}, Interval: config.Duration(time.Second), Retries: 30}
	live := &config.Healthcheck{Test: []string{"CMD", "alive"}, Interval: config.Duration(5 * time.Second), Retries: 3}
	st, obs := setWith(startup, live)
	obs.Replicas = obs.Replicas[:1]
	h.rt.set("c0", "alive", true)
	first := h.pass(&st, obs)
	if got := unstarted(first); !slices.Equal(got, []string{"web-0"}) {
		t.Fatalf("not ready before startup: %v", got)
	}
	if r := first.Replicas[0]; r.Ready() || r.NotReady == nil || r.NotReady.HealthOutput == "" {
		t.Errorf("before startup: ready %v, why %+v", r.Ready(), r.NotReady)
	}
	for range 4 {
		h.clock.blockUntil(t, 1)
		h.clock.Advance(t)
	}
	if h.rt.probed("alive") != 0 {
		t.Fatal("liveness probed before startup passed")
	}
	h.rt.set("c0", "started", true)
	h.clock.blockUntil(t, 1)
	h.clock.Advance(t)
	h.waitWoken(t)
	ready := h.pass(&st, obs)
	if got := unstarted(ready); len(got) != 0 || !ready.Replicas[0].Ready() {
		t.Errorf("after startup passed: unstarted %v", got)
	}
	if st.Liveness["c0"].Started.IsZero() {
		t.Error("the startup pass is not recorded")
	}
	// Another process (no manager: the engine's MarkLiveness) agrees.
	other := plan.Observed{Replicas: slices.Clone(obs.Replicas)}
	st.MarkLiveness(other.Replicas)
	if other.Replicas[0].Unstarted {
		t.Error("a process reading the state sees the replica unstarted")
	}
	starts := h.rt.probed("started")
	for range 3 {
		h.clock.blockUntil(t, 1)
		h.clock.Advance(t)
	}
	h.clock.blockUntil(t, 1)
	if h.rt.probed("started") != starts || h.rt.probed("alive") < 2 {
		t.Errorf("after startup: %d more startup probes, %d liveness probes", h.rt.probed("started")-starts, h.rt.probed("alive"))
	}
}

// A startup probe that fails failureThreshold times has the container
// restarted as a liveness failure does.
func TestStartupFailureRestarts(t *testing.T) {
	h := newHarness(t)
	startup := &config.Healthcheck{Test: []string{"CMD", "started"}, Interval: config.Duration(time.Second), Retries: 2}
	st, obs := setWith(startup, nil)
	obs.Replicas = obs.Replicas[1:]
	h.pass(&st, obs)
	h.clock.blockUntil(t, 1)
	h.clock.Advance(t)
	h.waitWoken(t)
	h.pass(&st, obs)
	if got := h.rt.restarted(); !slices.Equal(got, []string{"c1 7s"}) {
		t.Fatalf("restarts %v", got)
	}
	if want := "web-1: Startup probe failed: HTTP 500 from c1, restarting"; !slices.Equal(h.events, []string{want}) {
		t.Errorf("events %q", h.events)
	}
}
