package engine_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// missDeadline runs badRollout's rollout (no autoRollback) until its wait fails
// on the progress deadline.
func missDeadline(t *testing.T, deadline int) (*engine.Controller, *enginetest.Runtime, *[]string) {
	t.Helper()
	c, rt, _, events := badRollout(t, deadline, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var de *engine.DeadlineError
	if err := c.Converge(ctx, "web"); !errors.As(err, &de) {
		t.Fatalf("converge: %v, want a DeadlineError", err)
	}
	if st, _ := c.Store.Load("web"); !st.Progress.Late {
		t.Fatalf("progress %+v, want it late", st.Progress)
	}
	return c, rt, events
}

func late(events []string) int {
	n := 0
	for _, e := range events {
		if strings.Contains(e, "made no progress") {
			n++
		}
	}
	return n
}

// A command after a missed deadline starts a new wait: the cause fixed outside
// the template, ostset recreate's wait completes, instead of failing on its
// first pass with the earlier wait's deadline.
func TestRecreateAfterAMissedDeadlineWaitsAnew(t *testing.T) {
	c, rt, events := missDeadline(t, 60)
	rt.Unhealthy = nil // the cause is fixed outside the template
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Recreate(ctx, "web", []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatalf("the wait after recreate: %v; events %v", err, *events)
	}
	st, _ := c.Store.Load("web")
	if st.CurrentRevision != st.UpdateRevision || st.Progress.Late {
		t.Errorf("current %s, update %s, progress %+v", st.CurrentRevision, st.UpdateRevision, st.Progress)
	}
}

// A rollout that stays stuck fails the next command's wait too, but only one
// whole deadline after that wait began, marked late (and reported) again.
func TestNextWaitOnAStuckRolloutGetsAWholeDeadline(t *testing.T) {
	c, _, events := missDeadline(t, 5)
	if n := late(*events); n != 1 {
		t.Fatalf("%d deadline events, want 1: %v", n, *events)
	}
	plans := 0
	c.OnPlan = func(state.State, plan.Plan) { plans++ }
	var began time.Time
	now := c.Now
	c.Now = func() time.Time {
		t := now()
		if began.IsZero() {
			began = t
		}
		return t
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var de *engine.DeadlineError
	if err := c.Converge(ctx, "web"); !errors.As(err, &de) {
		t.Fatalf("converge: %v, want a DeadlineError", err)
	}
	if plans < 2 {
		t.Errorf("the wait failed after %d plans: on the earlier wait's deadline", plans)
	}
	if n := late(*events); n != 2 {
		t.Errorf("%d deadline events, want 2 (one per wait): %v", n, *events)
	}
	st, _ := c.Store.Load("web")
	if st.Progress.At.Before(began) {
		t.Errorf("the late mark %v is from before the wait began (%v)", st.Progress.At, began)
	}
}

// A follower's wait starts anew too: a daemon's late mark from an earlier
// command does not end it.
func TestFollowAfterAMissedDeadlineWaitsAnew(t *testing.T) {
	c, _, _ := missDeadline(t, 5)
	release, err := c.Store.HoldDaemon() // a daemon between two passes
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	f := &engine.Controller{Runtime: c.Runtime, Store: c.Store, Poll: 5 * time.Millisecond, Now: c.Now}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = f.Follow(ctx, "web", 0, "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Follow: %v, want it still waiting when its own timeout ends", err)
	}
	st, _ := c.Store.Load("web")
	if st.Progress.Late {
		t.Errorf("progress %+v: still late after a new wait began", st.Progress)
	}
}

// applyLater applies a set of replicas at image in the background, once the
// set's lock is free (a driving wait's plans are seen under it).
func applyLater(store state.Store, replicas int, image string) <-chan error {
	done := make(chan error, 1)
	go func() {
		s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
			VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
		s.ApplyDefaults()
		_, err := store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
			st.Spec = s
			st.SetUpdateRevision(s.RevisionSpec("sha256:"+image), "test", time.Now())
			return nil
		})
		done <- err
	}()
	return done
}

// stuckThenReplaced starts a rollout to v2, which never becomes ready, and has
// the first plan a wait sees replace it by v3, as a second ostset up would.
func stuckThenReplaced(t *testing.T) (*engine.Controller, state.State, func()) {
	t.Helper()
	rt := enginetest.New()
	rt.Unhealthy = map[string]bool{"sha256:v2": true}
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	mine, _ := c.Store.Load("web")
	var replaced <-chan error
	c.OnPlan = func(state.State, plan.Plan) {
		if replaced == nil {
			replaced = applyLater(c.Store, 3, "v3")
		}
	}
	return c, mine, func() {
		if err := <-replaced; err != nil {
			t.Fatal(err)
		}
	}
}

// A wait for the revision its command made ends, with a *SupersededError that
// names the command that replaced it, once another revision replaces it
// mid-rollout; it does not report the newer rollout as its own.
func TestWaitForARevisionThatIsSuperseded(t *testing.T) {
	for _, follow := range []bool{false, true} {
		c, mine, replaced := stuckThenReplaced(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var err error
		if follow {
			release, herr := c.Store.HoldDaemon()
			if herr != nil {
				t.Fatal(herr)
			}
			err = c.Follow(ctx, "web", 0, mine.UpdateRevision)
			release()
		} else {
			err = c.ConvergeTo(ctx, "web", mine.UpdateRevision)
		}
		cancel()
		replaced()
		var se *engine.SupersededError
		if !errors.As(err, &se) {
			t.Fatalf("follow %v: %v, want a SupersededError", follow, err)
		}
		st, _ := c.Store.Load("web")
		if se.Revision != mine.UpdateRevision || se.By != st.UpdateRevision || se.Cause != "test" || se.PID == 0 {
			t.Errorf("follow %v: %+v; want %s superseded by %s", follow, se, mine.UpdateRevision, st.UpdateRevision)
		}
		if want := "rollout of web to " + mine.UpdateRevision + " was superseded by revision " + st.UpdateRevision + " (number 3, \"test\", pid "; !strings.HasPrefix(se.Error(), want) {
			t.Errorf("message %q, want it to begin %q", se.Error(), want)
		}
	}
}

// The automatic rollback of the revision a wait is for is no supersession: the
// wait goes on and ends with the rollback's error once it completes.
func TestWaitForARevisionRolledBack(t *testing.T) {
	c, _, good, _ := badRollout(t, 5, true)
	st, _ := c.Store.Load("web")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rb *engine.RollbackError
	if err := c.ConvergeTo(ctx, "web", st.UpdateRevision); !errors.As(err, &rb) || rb.To != good.UpdateRevision {
		t.Fatalf("converge: %v, want a rollback to %s", err, good.UpdateRevision)
	}
}

// Waits for whatever the set rolls out (scale, recreate, rollout status,
// reconcile) follow a newer revision to its end.
func TestWaitWithoutARevisionFollowsANewerOne(t *testing.T) {
	c, _, replaced := stuckThenReplaced(t)
	converge(t, c)
	replaced()
	st, _ := c.Store.Load("web")
	if !slices.ContainsFunc(st.Revisions, func(r state.Revision) bool { return r.Name == st.CurrentRevision && r.Number == 3 }) {
		t.Errorf("current revision %s, want the third", st.CurrentRevision)
	}
}

// The time to ready of a replica whose healthcheck flaps counts from when it
// was seen not ready, not from its creation.
func TestTimeToReadyOfAFlappingReplica(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	c.WatchGap = time.Hour
	step := 0
	c.OnPlan = func(_ state.State, pl plan.Plan) {
		ready := len(pl.Status.Containers) > 0 && pl.Status.Containers[0].Ready
		switch {
		case step == 0 && ready: // web-0 ready: its healthcheck starts failing 10 minutes on
			step++
			clock = clock.Add(10 * time.Minute)
			rt.SetHealth("web-0", plan.HealthUnhealthy)
		case step == 1 && !ready: // seen not ready: healthy again 5 s later
			step++
			clock = clock.Add(5 * time.Second)
			rt.SetHealth("web-0", plan.HealthHealthy)
		}
	}
	converge(t, c)
	var lines []string
	for _, e := range *events {
		if strings.HasPrefix(e, "web-0 ready") {
			lines = append(lines, e)
		}
	}
	if !slices.Equal(lines, []string{"web-0 ready (0s)", "web-0 ready (5s)"}) {
		t.Errorf("web-0 ready lines %q, want the second one 5s after it was seen not ready; events %v", lines, *events)
	}
}

// killedAfterCreate is a runtime whose creates make the container and then
// never return (the process that called it is killed before it records the
// create), until ctx ends.
type killedAfterCreate struct {
	engine.Runtime
	created chan struct{}
}

func (r killedAfterCreate) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	if _, err := r.Runtime.CreateReplica(ctx, spec); err != nil {
		return engine.CreateResult{}, err
	}
	close(r.created)
	<-ctx.Done()
	return engine.CreateResult{}, ctx.Err()
}

// A daemon killed between a create and its record leaves a follower that saw
// the replica appear, and become ready, with no "created" line to relay: it
// says what it saw, the creation first, once the daemon is gone.
func TestFollowSaysACreateTheDaemonDidNotRecord(t *testing.T) {
	rt := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	apply(t, store, 1, "v1")
	bump := func(st *state.State, _ bool) error { st.Generation++; return nil } // not yet read by a pass
	if _, err := store.Update(context.Background(), "web", bump); err != nil {
		t.Fatal(err)
	}
	release, err := store.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	looked, sawReady := make(chan struct{}), make(chan struct{})
	var onceLooked, onceReady sync.Once
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond, Report: rec.report}
	f.OnPlan = func(_ state.State, pl plan.Plan) {
		switch {
		case len(pl.Status.Containers) == 0:
			onceLooked.Do(func() { close(looked) })
		case pl.Status.Containers[0].Ready:
			onceReady.Do(func() { close(sawReady) })
		}
	}
	done := make(chan error, 1)
	go func() { done <- f.Follow(context.Background(), "web", 0, "") }()
	<-looked
	// The daemon's pass creates web-0 and is killed before it records that.
	created := make(chan struct{})
	d := &engine.Controller{Runtime: killedAfterCreate{rt, created}, Store: store}
	engine.SetPID(d, os.Getpid()+1)
	kill, cancel := context.WithCancel(context.Background())
	passed := make(chan struct{})
	go func() { _, _ = d.Pass(kill, "web"); close(passed) }()
	<-created
	<-sawReady
	cancel()
	<-passed
	release()
	if err := <-done; err != nil {
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

// A replica made long before a wait and not ready when the wait began is said
// ready after the time the wait saw it not ready, not since its creation.
func TestTimeToReadyOfAnOldReplica(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 1, "v1")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	c.WatchGap = time.Hour
	converge(t, c)
	clock = clock.Add(time.Hour)
	rt.SetHealth("web-0", plan.HealthUnhealthy)
	healed := false
	c.OnPlan = func(state.State, plan.Plan) {
		if !healed {
			healed = true
			clock = clock.Add(7 * time.Second)
			rt.SetHealth("web-0", plan.HealthHealthy)
		}
	}
	*events = nil
	converge(t, c)
	if !slices.Contains(*events, "web-0 ready (7s)") {
		t.Errorf("events %v, want web-0 ready after the 7s this wait saw it not ready", *events)
	}
}
