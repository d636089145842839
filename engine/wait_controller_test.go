package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
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
	c.OnPlan = func(engine.State, engine.Plan) { plans++ }
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
func applyLater(store engine.Store, replicas int, image string) <-chan error {
	done := make(chan error, 1)
	go func() {
		s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
			VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
		s.ApplyDefaults()
		_, err := store.Update(context.Background(), "web", func(st *engine.State, _ bool) error {
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
func stuckThenReplaced(t *testing.T) (*engine.Controller, engine.State, func()) {
	t.Helper()
	rt := enginetest.New()
	rt.Unhealthy = map[string]bool{"sha256:v2": true}
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	mine, _ := c.Store.Load("web")
	var replaced <-chan error
	c.OnPlan = func(engine.State, engine.Plan) {
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
	if !slices.ContainsFunc(st.Revisions, func(r engine.Revision) bool { return r.Name == st.CurrentRevision && r.Number == 3 }) {
		t.Errorf("current revision %s, want the third", st.CurrentRevision)
	}
}
