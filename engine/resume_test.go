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
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// update changes the stored state of web under its lock.
func update(t *testing.T, c *engine.Controller, fn func(st *state.State)) {
	t.Helper()
	if _, err := c.Store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		fn(st)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A rollout interrupted and resumed later is not failed for the time no ostset
// process watched it: only watched time counts against the progress deadline.
func TestResumedRolloutKeepsItsDeadline(t *testing.T) {
	rt := enginetest.New()
	rt.Unhealthy = map[string]bool{"sha256:slow": true}
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	c.WatchGap = 3 * time.Second
	update(t, c, func(st *state.State) {
		st.Spec.UpdateStrategy.ProgressDeadlineSeconds = ptr(6)
		st.Spec.UpdateStrategy.AutoRollback = true
		st.SetUpdateRevision(st.Spec.RevisionSpec("sha256:slow"), "test", clock)
	})
	for range 3 { // watched for 2 s, then the process is interrupted
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Second)
	}
	clock = clock.Add(10 * time.Second) // nobody runs
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatalf("first pass after the resume: %v", err)
	}
	st, _ := c.Store.Load("web")
	if st.Progress.Late || st.LastRollback != nil {
		t.Fatalf("resumed rollout judged late (progress %+v, rollback %+v)", st.Progress, st.LastRollback)
	}
	for range 6 { // watched again: now the deadline passes
		clock = clock.Add(time.Second)
		if _, err := c.Pass(context.Background(), "web"); err != nil && !strings.Contains(err.Error(), "plan again") {
			t.Fatal(err)
		}
	}
	if st, _ := c.Store.Load("web"); st.LastRollback == nil {
		t.Fatalf("6 s watched without progress: no rollback (progress %+v)", st.Progress)
	}
}

// A wait whose very first pass rolls the rollout back reports the rollback
// (exit 1 in the CLI), not success.
func TestRollbackInFirstPassIsReported(t *testing.T) {
	c, _, good, _ := badRollout(t, 5, true)
	now := c.Now()
	update(t, c, func(st *state.State) {
		// Another process watched the rollout until a moment ago, for longer
		// than its deadline.
		st.Progress = state.ProgressMark{Revision: st.UpdateRevision, At: now.Add(-time.Minute), Seen: now}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rb *engine.RollbackError
	if err := c.Converge(ctx, "web"); !errors.As(err, &rb) || rb.To != good.UpdateRevision {
		t.Fatalf("converge: %v, want the rollback to %s reported", err, good.UpdateRevision)
	}
}

// A plan thrown away because the pass rolled back is not counted as a crash of
// the replicas it would have recreated.
func TestDiscardedPlanIsNotACrash(t *testing.T) {
	rt := enginetest.New()
	rt.Crashing = map[string]bool{"sha256:crash": true}
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	update(t, c, func(st *state.State) {
		st.Spec.UpdateStrategy.ProgressDeadlineSeconds = ptr(5)
		st.Spec.UpdateStrategy.AutoRollback = true
		st.SetUpdateRevision(st.Spec.RevisionSpec("sha256:crash"), "test", clock)
	})
	mustPass(t, c)                       // remove web-1 for the update
	mustPass(t, c)                       // create web-1 at crash: it exits
	update(t, c, func(st *state.State) { // the deadline passed while it was being watched
		st.Progress.At, st.Progress.Seen = clock.Add(-time.Minute), clock
	})
	if _, err := c.Pass(context.Background(), "web"); err == nil || !strings.Contains(err.Error(), "plan again") {
		t.Fatalf("the late pass did not roll back: %v", err)
	}
	p, err := c.Pass(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || !p.Actions[0].Failed || slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "back-off") }) {
		t.Fatalf("after the rollback the exited web-1 must be replaced at once; plan\n%s\nevents %v", p, *events)
	}
}

// A new revision applied during an automatic rollback ends the rollback, so
// that the new rollout may itself be rolled back.
func TestNewRevisionEndsAutoRollback(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := state.State{Spec: config.Set{Name: "web"}}
	st.Spec.UpdateStrategy.AutoRollback = true
	good := config.RevisionSpec{ImageID: "sha256:good"}
	st.SetUpdateRevision(good, "up", t0)
	st.CurrentRevision = st.UpdateRevision
	st.SetUpdateRevision(config.RevisionSpec{ImageID: "sha256:bad"}, "up", t0)
	if _, ok := st.AutoRollback(t0); !ok || st.RollingBackFrom == "" {
		t.Fatal("no automatic rollback")
	}
	st.SetUpdateRevision(config.RevisionSpec{ImageID: "sha256:fixed"}, "up", t0)
	if st.RollingBackFrom != "" {
		t.Errorf("RollingBackFrom = %s after a new revision", st.RollingBackFrom)
	}
}

// A first revision that never became available is not protected as current:
// fixing the file heals the set.
func TestBrokenFirstReleaseHealsWithTheFix(t *testing.T) {
	rt := enginetest.New()
	rt.Unhealthy = map[string]bool{"sha256:bad": true}
	c, _ := newController(t, rt, 2, "bad")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := c.Converge(ctx, "web"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("converge of a broken first release: %v", err)
	}
	if st, _ := c.Store.Load("web"); st.CurrentRevision != "" {
		t.Fatalf("current revision %s before any rollout completed", st.CurrentRevision)
	}
	apply(t, c.Store, 2, "good")
	converge(t, c)
}

// Readiness is remembered in the state, so a new process (status, a restarted
// controller) agrees that a replica ready long enough is available, although
// Docker's own probe window has slid forward.
func TestReadinessMemorySurvivesTheProcess(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rt := &slidingRuntime{Runtime: enginetest.New(), now: func() time.Time { return clock }}
	c, _ := newController(t, rt, 1, "v1")
	update(t, c, func(st *state.State) { st.Spec.MinReadySeconds = 6 })
	c.Now = func() time.Time { return clock }
	mustPass(t, c) // create
	clock = clock.Add(time.Second)
	mustPass(t, c) // ready: remembered
	clock = clock.Add(15 * time.Second)
	fresh := &engine.Controller{Runtime: rt, Store: c.Store, Now: c.Now}
	s, _, err := fresh.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.AvailableReplicas != 1 {
		t.Fatalf("ready for 15 s with minReadySeconds 6: %d available", s.AvailableReplicas)
	}
}

// slidingRuntime reports every ready replica as ready since a second ago, as
// Docker's five-probe window suggests for a long-healthy container.
type slidingRuntime struct {
	*enginetest.Runtime
	now func() time.Time
}

func (r *slidingRuntime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	obs, err := r.Runtime.Observe(ctx, set, opts)
	for i := range obs.Replicas {
		if obs.Replicas[i].State == plan.StateRunning {
			obs.Replicas[i].ReadySince = r.now().Add(-time.Second)
		}
	}
	return obs, err
}

// up after a down that was cut short cancels the delete and brings the set back,
// keeping its volumes; it never finishes the delete.
func TestApplyCancelsAnUnfinishedDelete(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.FailRemove = "web-1"
	if err := c.Delete(context.Background(), "web", true); err == nil {
		t.Fatal("delete with a failing remove succeeded")
	}
	st, _ := c.Store.Load("web")
	res, err := c.Apply(context.Background(), st.Spec, "up", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "cancelled the unfinished delete") {
		t.Errorf("notes %q do not say the delete was cancelled", res.Notes)
	}
	converge(t, c)
	obs, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	if len(obs.Replicas) != 3 || len(obs.Volumes) != 3 {
		t.Fatalf("after up: %d replicas, %d volumes; want 3 and 3", len(obs.Replicas), len(obs.Volumes))
	}
}

// Recreate removes one replica; the next passes create it again with its volume.
func TestRecreateOneReplica(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	before, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	if err := c.Recreate(context.Background(), "web", []int{1}); err != nil {
		t.Fatal(err)
	}
	converge(t, c)
	after, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	for i := range 3 {
		if changed := before.Replicas[i].ID != after.Replicas[i].ID; changed != (i == 1) {
			t.Errorf("web-%d: ID %s -> %s", i, before.Replicas[i].ID, after.Replicas[i].ID)
		}
	}
	if err := c.Recreate(context.Background(), "web", []int{7}); err == nil {
		t.Error("recreating a replica that does not exist succeeded")
	}
}

// The crash-loop back-off is kept in the state: a new process (another up, a
// restarted daemon) does not recreate a crashing replica at once.
func TestCrashLoopBackoffSurvivesTheProcess(t *testing.T) {
	rt := enginetest.New()
	rt.Crashing = map[string]bool{"sha256:crash": true}
	c, _ := newController(t, rt, 1, "crash")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	for range 3 { // create, remove the exited one (first time at once), create again
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
	}
	fresh := &engine.Controller{Runtime: rt, Store: c.Store, Now: c.Now}
	p, err := fresh.Pass(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 0 || !strings.Contains(p.String(), "crash-loop back-off") {
		t.Fatalf("a new process recreates the crashing replica at once:\n%s", p)
	}
}

func mustPass(t *testing.T, c *engine.Controller) {
	t.Helper()
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
}
