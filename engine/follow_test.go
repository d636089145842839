package engine_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// watchOnly is a runtime that counts every call that would change something:
// a follower must make none.
type watchOnly struct {
	engine.Runtime
	mu      sync.Mutex
	changes []string
}

func (w *watchOnly) changed(call string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes = append(w.changes, call)
}

func (w *watchOnly) calls() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.changes)
}

func (w *watchOnly) EnsureNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	w.changed("EnsureNetwork")
	return w.Runtime.EnsureNetwork(ctx, name, labels)
}

func (w *watchOnly) RemoveNetwork(ctx context.Context, name string) (bool, error) {
	w.changed("RemoveNetwork")
	return w.Runtime.RemoveNetwork(ctx, name)
}

func (w *watchOnly) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	w.changed("CreateReplica " + spec.Name)
	return w.Runtime.CreateReplica(ctx, spec)
}

func (w *watchOnly) StartReplica(ctx context.Context, set, id string) error {
	w.changed("StartReplica")
	return w.Runtime.StartReplica(ctx, set, id)
}

func (w *watchOnly) ConnectNetworks(ctx context.Context, set, id string, joins []plan.NetworkJoin) error {
	w.changed("ConnectNetworks")
	return w.Runtime.ConnectNetworks(ctx, set, id, joins)
}

func (w *watchOnly) RemoveReplica(ctx context.Context, set, id string, grace time.Duration) error {
	w.changed("RemoveReplica")
	return w.Runtime.RemoveReplica(ctx, set, id, grace)
}

func (w *watchOnly) RemoveVolume(ctx context.Context, set, name string) error {
	w.changed("RemoveVolume")
	return w.Runtime.RemoveVolume(ctx, set, name)
}

// recordedLate is a runtime whose creates return a while after the container
// exists, as over a slow connection to the engine: a follower can see a
// replica, even ready, before the daemon that made it has recorded it.
type recordedLate struct {
	engine.Runtime
	late time.Duration
}

func (r recordedLate) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	res, err := r.Runtime.CreateReplica(ctx, spec)
	time.Sleep(r.late)
	return res, err
}

// recorder collects reported events, safe for the goroutines of a test.
type recorder struct {
	mu     sync.Mutex
	events []state.Event
}

func (r *recorder) report(e state.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Message)
	}
	return out
}

func (r *recorder) has(prefix string) bool {
	return slices.ContainsFunc(r.messages(), func(m string) bool { return strings.HasPrefix(m, prefix) })
}

// startDaemon runs a daemon on the store, recording its events as another
// process's, until the test ends.
func runDaemonAs(t *testing.T, rt engine.Runtime, store state.Store, pid int) {
	t.Helper()
	release, err := store.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	d := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond}
	engine.SetPID(d, pid)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = (&daemon.Daemon{Controller: d, Resync: 20 * time.Millisecond}).Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; release() })
}

// A follower reports the daemon's rollout, each line once, and acts on nothing.
// Its creates are recorded only after the replicas exist and are ready: the
// follower still relays the last one before it ends.
func TestFollowReportsTheDaemonsRolloutWithoutActing(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	daemonPID := os.Getpid() + 1
	runDaemonAs(t, recordedLate{rt, 100 * time.Millisecond}, store, daemonPID)

	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 3, "v1")
	// This process's own line about the change is printed by whoever made it.
	if err := store.AppendEvent(state.Event{Time: time.Now(), Set: "web", Message: "applied by this process"}); err != nil {
		t.Fatal(err)
	}
	watch := &watchOnly{Runtime: rt}
	var rec recorder
	f := &engine.Controller{Runtime: watch, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	if calls := watch.calls(); len(calls) > 0 {
		t.Errorf("the follower acted: %v", calls)
	}
	if got := len(rt.Replicas()); got != 3 {
		t.Fatalf("%d replicas once the follow ended, want 3", got)
	}
	msgs := rec.messages()
	for _, r := range []string{"web-0", "web-1", "web-2"} {
		for _, what := range []string{r + " created", r + " ready"} {
			n := 0
			for _, m := range msgs {
				if strings.HasPrefix(m, what) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%q reported %d times, want once; reported:\n%s", what, n, strings.Join(msgs, "\n"))
			}
		}
	}
	if rec.has("applied by this process") {
		t.Errorf("the follower relayed its own process's event:\n%s", strings.Join(msgs, "\n"))
	}
	if !rec.has("following the rollout that the daemon") {
		t.Errorf("the follower did not say whom it follows:\n%s", strings.Join(msgs, "\n"))
	}
	// The log says who acted.
	events, _, err := store.Events("web", after)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if strings.Contains(e.Message, " created ") && e.PID != daemonPID {
			t.Errorf("event %q recorded by pid %d, want the daemon's %d", e.Message, e.PID, daemonPID)
		}
	}
}

// A follower that first looks when the daemon's replica is already there and
// ready, but not yet recorded, says it is ready once its creation is relayed,
// in that order.
func TestFollowSaysTheReadinessOfAReplicaRecordedLate(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	runDaemonAs(t, recordedLate{rt, 300 * time.Millisecond}, store, os.Getpid()+1)
	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 1, "v1")
	awaitCondition(t, func() bool { return len(rt.Replicas()) == 1 }) // made, and the daemon not yet back
	var rec recorder
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	var lines []string
	for _, m := range rec.messages() {
		if strings.HasPrefix(m, "web-0 ") {
			lines = append(lines, strings.Fields(m)[1])
		}
	}
	if !slices.Equal(lines, []string{"created", "ready"}) {
		t.Errorf("lines about web-0: %v, want [created ready]; reported:\n%s", lines, strings.Join(rec.messages(), "\n"))
	}
}

// While the daemon lock is held the follower only watches; once it is released
// (the daemon died), the follower drives the rollout to its end.
func TestFollowTakesOverWhenTheDaemonStops(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	release, err := store.HoldDaemon() // a daemon that hangs: it holds the lock, drives nothing
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 2, "v1")
	var rec recorder
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	done := make(chan error, 1)
	go func() { done <- f.Follow(context.Background(), "web", 0, "") }()

	awaitCondition(t, func() bool { return rec.has("following the rollout") })
	time.Sleep(50 * time.Millisecond) // ten polls: a follower that acted would have by now
	if len(rt.Replicas()) != 0 {
		t.Fatalf("the follower created %v while the daemon held the state directory", rt.Replicas())
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Follow after the daemon stopped: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not take over")
	}
	if len(rt.Replicas()) != 2 {
		t.Errorf("replicas %v, want 2", rt.Replicas())
	}
	if !rec.has("the daemon (pid") || !rec.has("web-1 created") {
		t.Errorf("reported:\n%s", strings.Join(rec.messages(), "\n"))
	}
}

// A follow that times out says where the rollout stood, as a driving wait does.
func TestFollowStopsWithWhereTheRolloutStood(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	release, err := store.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	apply(t, store, 2, "v1")
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = f.Follow(ctx, "web", 0, "")
	var stopped *engine.StoppedError
	if !errors.As(err, &stopped) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Follow: %v, want a StoppedError for the deadline", err)
	}
	if !strings.Contains(stopped.Where, "0 of 2 replicas") {
		t.Errorf("where: %q", stopped.Where)
	}
}

// A change that needs no action on the replicas is complete for a follower only
// once the daemon has read it (a pass recorded its generation).
func TestFollowEndsWhenTheDaemonHasReadTheChange(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	apply(t, store, 1, "v1")
	d := &engine.Controller{Runtime: rt, Store: store}
	if err := d.Converge(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	release, err := store.HoldDaemon() // the daemon, between two passes
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	bump := func(st *state.State, _ bool) error { st.Generation++; return nil }
	if _, err := store.Update(context.Background(), "web", bump); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	done := make(chan error, 1)
	go func() { done <- f.Follow(context.Background(), "web", 0, "") }()
	awaitCondition(t, func() bool { return rec.has("following the rollout") })
	select {
	case err := <-done:
		t.Fatalf("Follow ended (%v) before the daemon read the change", err)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := d.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not end after the daemon's pass")
	}
}

// A follower that first looks when the daemon has already made the replicas
// ready still reports each of them ready once: a replica created since the
// command began is news, whenever the follower sees it.
func TestFollowReportsReadinessReachedBeforeItLooked(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	runDaemonAs(t, rt, store, os.Getpid()+1)
	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 3, "v1")
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, err := store.Load("web")
		if err == nil && len(rt.Replicas()) == 3 && st.ObservedGeneration >= st.Generation && st.CurrentRevision == st.UpdateRevision {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not complete the rollout")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var rec recorder
	f := &engine.Controller{Runtime: &watchOnly{Runtime: rt}, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	msgs := rec.messages()
	for _, r := range []string{"web-0", "web-1", "web-2"} {
		n := 0
		for _, m := range msgs {
			if strings.HasPrefix(m, r+" ready") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q reported ready %d times, want once; reported:\n%s", r, n, strings.Join(msgs, "\n"))
		}
	}
}

// failingCreates is a runtime whose creates fail while fail is set, as a
// start fails for ever on a network ID that no longer exists.
type failingCreates struct {
	engine.Runtime
	fail *atomic.Bool
}

func (r failingCreates) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	if r.fail.Load() {
		return engine.CreateResult{}, errors.New(spec.Name + ": start: network 2d8d not found")
	}
	return r.Runtime.CreateReplica(ctx, spec)
}

// awaitEvent waits until the set's log holds an event that ok accepts.
func awaitEvent(t *testing.T, store state.Store, ok func(state.Event) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		events, _, err := store.Events("web", 0)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(events, ok) {
			return
		}
	}
	t.Fatal("the awaited event was not recorded")
}

// A follower that starts while the daemon keeps failing shows the failure,
// although the daemon recorded it once, before the follower started, and
// says it in the error a stopped wait returns. Once the daemon recovered, a
// new follower says nothing of it.
func TestFollowShowsTheFailureTheDaemonKeepsHitting(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	fail := &atomic.Bool{}
	fail.Store(true)
	// The daemon records as this process, the pid its lock holds; the
	// follower is another.
	runDaemonAs(t, failingCreates{rt, fail}, store, os.Getpid())
	apply(t, store, 2, "v1")
	awaitEvent(t, store, func(e state.Event) bool { return e.Failing })
	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}

	var rec recorder
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	engine.SetPID(f, os.Getpid()+1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = f.Follow(ctx, "web", after, "")
	var stopped *engine.StoppedError
	if !errors.As(err, &stopped) || !strings.Contains(stopped.Detail, "network 2d8d not found") {
		t.Errorf("Follow: %v, want a StoppedError naming the daemon's failure", err)
	}
	if !rec.has("the daemon keeps failing since") || !slices.ContainsFunc(rec.messages(), func(m string) bool { return strings.Contains(m, "network 2d8d not found") }) {
		t.Errorf("the follower did not show the daemon's failure:\n%s", strings.Join(rec.messages(), "\n"))
	}

	fail.Store(false)
	awaitEvent(t, store, func(e state.Event) bool { return e.Recovered })
	if after, err = store.EventSeq("web"); err != nil {
		t.Fatal(err)
	}
	rec = recorder{}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow after the recovery: %v", err)
	}
	if rec.has("the daemon keeps failing") {
		t.Errorf("a follower showed a failure the daemon recovered from:\n%s", strings.Join(rec.messages(), "\n"))
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

// startFailsOnce is the daemon's runtime whose first create of web-0 waits
// for the follower's first look, makes the container, keeps it until the
// follower has seen it, then removes it and fails, as a start on a network
// removed meanwhile does; the retry succeeds.
type startFailsOnce struct {
	engine.Runtime
	rt       *enginetest.Runtime
	follower *seesContainer
	once     sync.Once
}

func (r *startFailsOnce) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	failed := false
	var err error
	var made []string // all new at the first create
	for _, v := range spec.Volumes {
		made = append(made, v.Name)
	}
	r.once.Do(func() {
		failed = true
		<-r.follower.first
		if _, err = r.Runtime.CreateReplica(ctx, spec); err == nil {
			<-r.follower.seen
			r.rt.Destroy(spec.Name)
			err = errors.New(spec.Name + ": start: network 1722 not found")
		}
	})
	if failed {
		return engine.CreateResult{CreatedVolumes: made}, err
	}
	return r.Runtime.CreateReplica(ctx, spec)
}

// seesContainer is the follower's runtime: it closes first after its first
// observation, and seen once an observation holds the named container.
type seesContainer struct {
	engine.Runtime
	name                string
	onceFirst, onceSeen sync.Once
	first, seen         chan struct{}
}

func (r *seesContainer) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	obs, err := r.Runtime.Observe(ctx, set, opts)
	if slices.ContainsFunc(obs.Replicas, func(x plan.Replica) bool { return x.Name == r.name }) {
		r.onceSeen.Do(func() { close(r.seen) })
	}
	r.onceFirst.Do(func() { close(r.first) })
	return obs, err
}

// A follower that saw the container of a create whose start failed (removed
// again by the daemon, which then made another) reports the replica's
// creation once, as the daemon recorded it, and its readiness in order: not a
// second "created" line "not recorded by the process that made it".
func TestFollowIgnoresTheContainerOfAFailedStart(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	follower := &seesContainer{Runtime: rt, name: "web-0", first: make(chan struct{}), seen: make(chan struct{})}
	runDaemonAs(t, &startFailsOnce{Runtime: rt, rt: rt, follower: follower}, store, os.Getpid()+1)
	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 2, "v1")
	var rec recorder
	f := &engine.Controller{Runtime: follower, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	var lines []string
	for _, m := range rec.messages() {
		if strings.HasPrefix(m, "web-") {
			lines = append(lines, strings.Join(strings.Fields(m)[:2], " "))
		}
	}
	want := []string{"web-0 created", "web-0 ready", "web-1 created", "web-1 ready"}
	if !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q; reported:\n%s", lines, want, strings.Join(rec.messages(), "\n"))
	}
}

// gatedCreates is the daemon's runtime whose first create waits until the
// follower has looked once.
type gatedCreates struct {
	engine.Runtime
	looked <-chan struct{}
}

func (r gatedCreates) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	<-r.looked
	return r.Runtime.CreateReplica(ctx, spec)
}

// laggingView is the follower's runtime: from its call number at on, the
// first observation that shows the replica shows ("": any) is handed back only
// once the daemon has recorded a line that begins with until, as a view taken
// just before a fast daemon's next pass. looked closes after the first call.
type laggingView struct {
	engine.Runtime
	store              state.Store
	at                 int32
	shows, until       string
	calls              atomic.Int32
	onceFirst, onceLag sync.Once
	looked             chan struct{}
}

func (r *laggingView) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	obs, err := r.Runtime.Observe(ctx, set, opts)
	r.onceFirst.Do(func() { close(r.looked) })
	if r.calls.Add(1) >= r.at && (r.shows == "" || slices.ContainsFunc(obs.Replicas, func(x plan.Replica) bool { return x.Name == r.shows })) {
		r.onceLag.Do(func() {
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				events, _, _ := r.store.Events(set, 0)
				if slices.ContainsFunc(events, func(e state.Event) bool { return strings.HasPrefix(e.Message, r.until) }) {
					return
				}
			}
		})
	}
	return obs, err
}

// followLagging follows a rollout of two replicas, with the follower's view
// lagging as a laggingView with at, shows and until, and checks the lines it
// said about the replicas.
func followLagging(t *testing.T, at int32, shows, until string) {
	t.Helper()
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	follower := &laggingView{Runtime: rt, store: store, at: at, shows: shows, until: until, looked: make(chan struct{})}
	runDaemonAs(t, gatedCreates{rt, follower.looked}, store, os.Getpid()+1)
	after, err := store.EventSeq("web")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store, 2, "v1")
	var rec recorder
	f := &engine.Controller{Runtime: follower, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.Follow(ctx, "web", after, ""); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	var lines []string
	for _, m := range rec.messages() {
		if strings.HasPrefix(m, "web-") {
			lines = append(lines, strings.Join(strings.Fields(m)[:2], " "))
		}
	}
	want := []string{"web-0 created", "web-0 ready", "web-1 created", "web-1 ready"}
	if !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q; reported:\n%s", lines, want, strings.Join(rec.messages(), "\n"))
	}
}

// A follower whose view lags behind the daemon's log (web-0 ready, then
// web-1 created, recorded before the follower's view shows web-0 ready)
// tells the rollout in the log's order: web-0's readiness, from the daemon's
// line, before web-1's creation, and once.
func TestFollowSaysReadinessInTheOrderOfTheDaemonsLog(t *testing.T) {
	followLagging(t, 2, "web-0", "web-1 created")
}

// A follower whose first view is older than the daemon's first "created"
// line, relayed in the same turn, does not take the container its next view
// shows for one no line recorded ("created …; seen in Docker, not recorded").
func TestFollowsFirstViewOlderThanTheFirstCreatedLine(t *testing.T) {
	followLagging(t, 1, "", "web-0 created")
}
