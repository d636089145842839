package daemon_test

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// events is a fake engine.EventSource: the test sends events, cuts the stream
// (the channel closes, as when Docker restarts) and lets it reopen.
type events struct {
	mu     sync.Mutex
	ch     chan engine.SetEvent
	down   bool
	opened int
}

func (e *events) WatchSets(ctx context.Context) (<-chan engine.SetEvent, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.down {
		return nil, context.DeadlineExceeded // any error: the engine does not answer
	}
	e.ch = make(chan engine.SetEvent, 16)
	e.opened++
	return e.ch, nil
}

func (e *events) send(ev engine.SetEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ch <- ev
}

func (e *events) cut() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.down = true
	close(e.ch)
}

func (e *events) restore() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.down = false
}

func (e *events) subscriptions() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opened
}

// startDaemon runs a daemon whose safety nets (resync, rollout poll) are an
// hour away, so that only what the test exercises can make a pass.
func startDaemon(t *testing.T, rt engine.Runtime, ev engine.EventSource) (*engine.Controller, *countMetrics, func()) {
	t.Helper()
	return startDaemonResync(t, rt, ev, time.Hour)
}

// startDaemonResync is startDaemon with the given resync period.
func startDaemonResync(t *testing.T, rt engine.Runtime, ev engine.EventSource, resync time.Duration) (*engine.Controller, *countMetrics, func()) {
	t.Helper()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: time.Hour}
	m := &countMetrics{}
	d := &daemon.Daemon{Controller: c, Events: ev, Resync: resync, Metrics: m}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	return c, m, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the daemon did not stop with its context")
		}
	}
}

func running(rt *enginetest.Runtime) map[string]string { // name -> ID
	obs, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	ids := map[string]string{}
	for _, r := range obs.Replicas {
		if r.State == plan.StateRunning {
			ids[r.Name] = r.ID
		}
	}
	return ids
}

// A set written to the store by another process is picked up through the
// state directory watch, and a later change to it (a scale) too: with the
// resync an hour away, nothing else would make a pass.
func TestDaemonPicksUpStateChanges(t *testing.T) {
	rt := enginetest.New()
	c, _, stop := startDaemon(t, rt, nil)
	defer stop()
	other := state.Store{Dir: c.Store.Dir} // another process: not the daemon's own writes
	apply(t, other, 2, "v1")
	awaitCondition(t, func() bool { return len(running(rt)) == 2 })
	apply(t, other, 3, "v1")
	awaitCondition(t, func() bool { return len(running(rt)) == 3 })
}

// A Docker event about a set makes a pass at once.
func TestDaemonReactsToEvents(t *testing.T) {
	rt := enginetest.New()
	ev := &events{}
	c, m, stop := startDaemon(t, rt, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 2, "v1")
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 })
	// Another state directory's set shares the engine: its events make no pass.
	ev.send(engine.SetEvent{Set: "other", Name: "other-0", Action: "die"})
	crashed := running(rt)["web-1"]
	rt.Exit("web-1")
	ev.send(engine.SetEvent{Set: "web", Name: "web-1", Action: "die"})
	awaitCondition(t, func() bool { id := running(rt)["web-1"]; return id != "" && id != crashed })
	if n := m.get().bySet["other"]; n != 0 {
		t.Errorf("%d passes of a set the store does not hold", n)
	}
}

// The replacement of a replica removed by hand is created from the daemon's
// kept observation, with no list of the set between the destroy event and the
// create; an event that is not a destroy is answered from a fresh one.
func TestDaemonAnswersADestroyWithoutObserving(t *testing.T) {
	fake := enginetest.New()
	rt := &countingRuntime{Runtime: fake, atCreate: map[string]int{}}
	ev := &events{}
	c, m, stop := startDaemon(t, rt, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 3, "v1")
	// The pass that found the set complete acted on nothing: it kept its observation.
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 })

	before := rt.count()
	removed := fake.Destroy("web-1")
	ev.send(engine.SetEvent{Set: "web", ID: removed, Name: "web-1", Action: "destroy"})
	awaitCondition(t, func() bool { id := running(fake)["web-1"]; return id != "" && id != removed })
	if n := rt.createdAfter("web-1") - before; n != 0 {
		t.Errorf("%d observations between the destroy and the create, want none", n)
	}

	awaitCondition(t, func() bool { return rt.count() > before }) // the pass after the create observes again
	before = rt.count()
	crashed := running(fake)["web-0"]
	fake.Exit("web-0")
	ev.send(engine.SetEvent{Set: "web", ID: crashed, Name: "web-0", Action: "die"})
	awaitCondition(t, func() bool { id := running(fake)["web-0"]; return id != "" && id != crashed })
	if rt.createdAfter("web-0") == before {
		t.Error("a die was answered from the kept observation, which still had the replica running")
	}
}

// A replica's die is answered at once although Docker's container list still
// shows the replica running (it catches up with the event a moment later): the
// pass reads the state of the container that died by inspect. The resync is an
// hour away, so nothing else can recreate it.
func TestDaemonAnswersADieTheListHasNotShown(t *testing.T) {
	fake := enginetest.New()
	ev := &events{}
	c, m, stop := startDaemon(t, fake, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 3, "v1")
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 })
	for _, name := range []string{"web-1", "web-2"} { // the second with the daemon's copy taken again
		crashed := fake.ExitUnlisted(name)
		ev.send(engine.SetEvent{Set: "web", ID: crashed, Name: name, Action: "die"})
		awaitCondition(t, func() bool { id := running(fake)[name]; return id != "" && id != crashed })
	}
}

// A network removed is answered at once, by a pass of every set that lists
// it anew (the event names no set, and the daemon's copy of the set still has
// the replica on the network): the resync is an hour away.
func TestDaemonAnswersANetworkRemoved(t *testing.T) {
	fake := enginetest.New()
	ev := &events{}
	c, m, stop := startDaemon(t, fake, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 2, "v1")
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 })
	cut := running(fake)["web-1"]
	fake.Disconnect("web-1", "ostset") // as a network disconnect -f and rm do, with no container event
	ev.send(engine.SetEvent{Network: "ostset", Action: "network destroy"})
	awaitCondition(t, func() bool { id := running(fake)["web-1"]; return id != "" && id != cut })
}

// The resync lists the set even when the daemon keeps an observation: it is
// the safety net for what no event said (here a replica that exited unseen).
func TestDaemonResyncListsTheSet(t *testing.T) {
	fake := enginetest.New()
	ev := &events{}
	c, m, stop := startDaemonResync(t, fake, ev, 50*time.Millisecond)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 2, "v1")
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 })
	crashed := running(fake)["web-1"]
	fake.Exit("web-1") // no event
	awaitCondition(t, func() bool { id := running(fake)["web-1"]; return id != "" && id != crashed })
}

// countingRuntime counts observations, and notes how many there had been at
// each replica's last create.
type countingRuntime struct {
	*enginetest.Runtime
	mu       sync.Mutex
	observes int
	atCreate map[string]int
}

func (r *countingRuntime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	r.mu.Lock()
	r.observes++
	r.mu.Unlock()
	return r.Runtime.Observe(ctx, set, opts)
}

func (r *countingRuntime) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	r.mu.Lock()
	r.atCreate[spec.Name] = r.observes
	r.mu.Unlock()
	return r.Runtime.CreateReplica(ctx, spec)
}

func (r *countingRuntime) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.observes
}

func (r *countingRuntime) createdAfter(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.atCreate[name]
}

// Events missed while the stream was down are made up for: the daemon
// re-subscribes and passes every set once the stream is back.
func TestDaemonResyncsAfterReconnect(t *testing.T) {
	rt := enginetest.New()
	ev := &events{}
	c, m, stop := startDaemon(t, rt, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 2, "v1")
	awaitCondition(t, func() bool { return m.get().complete && ev.subscriptions() == 1 }) // no pass is due for an hour
	ev.cut()
	crashed := running(rt)["web-0"]
	rt.Exit("web-0") // its event is lost: the stream is down
	time.Sleep(50 * time.Millisecond)
	ev.restore()
	awaitCondition(t, func() bool { id := running(rt)["web-0"]; return id != "" && id != crashed })
	if n := ev.subscriptions(); n != 2 {
		t.Errorf("%d subscriptions, want 2", n)
	}
}

// A set that fails is retried with back-off, and an event does not make it
// retry sooner.
func TestDaemonBacksOffOnFailure(t *testing.T) {
	rt := enginetest.New()
	rt.FailCreate = 1
	ev := &events{}
	c, m, stop := startDaemon(t, rt, ev)
	defer stop()
	apply(t, state.Store{Dir: c.Store.Dir}, 1, "v1")
	awaitCondition(t, func() bool { return m.get().errors == 1 && ev.subscriptions() == 1 })
	failedAt := time.Now()
	for range 5 {
		ev.send(engine.SetEvent{Set: "web", Action: "die"})
	}
	awaitCondition(t, func() bool { return len(running(rt)) == 1 })
	if took := time.Since(failedAt); took < 400*time.Millisecond {
		t.Errorf("retried %s after the failure, before the back-off (500ms)", took)
	}
	if got := m.get(); got.errors != 1 || got.failedPasses != 1 {
		t.Errorf("metrics %+v, want one create error and one failed pass", got)
	}
}

// The daemon stops with its context.
func TestDaemonStops(t *testing.T) {
	_, _, stop := startDaemon(t, enginetest.New(), &events{})
	stop()
}

type countMetrics struct {
	mu   sync.Mutex
	c    counts
	gone []error // what EngineGone was told, in order
}

type counts struct {
	passes, failedPasses, errors, reactions int
	bySet                                   map[string]int
	complete                                bool // the last pass found the rollout complete
}

func (m *countMetrics) get() counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.bySet = maps.Clone(m.c.bySet)
	return c
}

func (m *countMetrics) Pass(set string, pl plan.Plan, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.passes++
	if m.c.bySet == nil {
		m.c.bySet = map[string]int{}
	}
	m.c.bySet[set]++
	m.c.complete = err == nil && pl.Complete && len(pl.Actions) == 0
	if err != nil {
		m.c.failedPasses++
	}
}

func (m *countMetrics) Reacted(time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.reactions++
}

func (m *countMetrics) RuntimeError(string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.errors++
}

func (m *countMetrics) Forget(string) {}

func (m *countMetrics) EngineGone(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gone = append(m.gone, err)
}

func (m *countMetrics) engineGone() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.gone)
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

// apply stores a set "web" of replicas replicas of image, as ostset up does.
func apply(t *testing.T, store state.Store, replicas int, image string) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.ApplyDefaults()
	if _, err := store.Update(context.Background(), s.Name, func(st *state.State, _ bool) error {
		st.Spec = s
		st.SetUpdateRevision(s.RevisionSpec("sha256:"+s.Template.Image), "test", time.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// attempts counts the creates of each container.
type attempts struct {
	*enginetest.Runtime
	mu sync.Mutex
	n  map[string]int
}

func (r *attempts) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	r.mu.Lock()
	r.n[spec.Name]++
	r.mu.Unlock()
	return r.Runtime.CreateReplica(ctx, spec)
}

func (r *attempts) of(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[name]
}

// One replica the engine refuses for good (its host port held) holds back
// that replica alone, until its own retry: the die of another replica of the
// set is answered at once, by a pass that does not try the refused one again.
func TestDaemonHoldsBackOnlyTheRefusedReplica(t *testing.T) {
	fake := enginetest.New()
	fake.Refuse = map[string]string{"web-1": "Bind for 0.0.0.0:21400 failed: port is already allocated"}
	rt := &attempts{Runtime: fake, n: map[string]int{}}
	ev := &events{}
	dir := t.TempDir()
	store := state.Store{Dir: dir}
	replicas := 2
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: "v1"}, PodManagementPolicy: config.Parallel}
	s.ApplyDefaults()
	if _, err := store.Update(context.Background(), s.Name, func(st *state.State, _ bool) error {
		st.Spec = s
		st.SetUpdateRevision(s.RevisionSpec("sha256:v1"), "test", time.Now())
		// Refused eight times in a row already: the next retry after the
		// daemon's first try is a minute away.
		st.Failures = map[string]state.Failure{"web-1": {Reason: "port is already allocated", Count: 8}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c := &engine.Controller{Runtime: rt, Store: store, Poll: time.Hour}
	m := &countMetrics{}
	d := &daemon.Daemon{Controller: c, Events: ev, Resync: time.Hour, Metrics: m}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	awaitCondition(t, func() bool {
		return running(fake)["web-0"] != "" && rt.of("web-1") == 1 && m.get().failedPasses >= 1 && ev.subscriptions() == 1
	})
	crashed := fake.ExitUnlisted("web-0")
	passes := m.get().passes
	ev.send(engine.SetEvent{Set: "web", ID: crashed, Name: "web-0", Action: "die"})
	awaitCondition(t, func() bool {
		id := running(fake)["web-0"]
		return id != "" && id != crashed && m.get().passes > passes
	})
	if n := rt.of("web-1"); n != 1 {
		t.Errorf("web-1 tried %d times by the time web-0's die was answered, want once: the refusal held the set back", n)
	}
}
