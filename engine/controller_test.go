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

func newController(t *testing.T, rt engine.Runtime, replicas int, image string) (*engine.Controller, *[]string) {
	t.Helper()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	var events []string
	c.Report = func(e state.Event) { events = append(events, e.Message) }
	apply(t, c.Store, replicas, image)
	return c, &events
}

func apply(t *testing.T, store state.Store, replicas int, image string) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.ApplyDefaults()
	storeSpec(t, store, s)
}

// storeSpec stores s as the set's spec with its update revision, as ostset up
// of a set file does.
func storeSpec(t *testing.T, store state.Store, s config.Set) {
	t.Helper()
	if _, err := store.Update(context.Background(), s.Name, func(st *state.State, _ bool) error {
		st.Spec = s
		st.SetUpdateRevision(s.RevisionSpec("sha256:"+s.Template.Image), "test", time.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func converge(t *testing.T, c *engine.Controller) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
}

func TestConvergeCreatesInOrderAndRollsBack(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	if want := []string{"create web-0", "create web-1", "create web-2"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}

	rt.Log = nil
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	want := []string{"remove web-2", "create web-2", "remove web-1", "create web-1", "remove web-0", "create web-0"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("rolling update log %v, want %v", rt.Log, want)
	}
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentRevision != st.UpdateRevision || st.ObservedGeneration != st.Generation {
		t.Errorf("after the rollout: current %s update %s, observed %d of %d", st.CurrentRevision, st.UpdateRevision, st.ObservedGeneration, st.Generation)
	}
}

func TestConvergeRetriesFailedCreate(t *testing.T) {
	rt := enginetest.New()
	rt.FailCreate = 2
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	if want := []string{"create web-0", "create web-1 failed", "create web-1"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if !slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "injected failure") }) {
		t.Errorf("the failure was not reported: %v", *events)
	}
}

func TestConvergeRecreatesExited(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Exit("web-1")
	rt.Log = nil
	converge(t, c)
	if want := []string{"remove web-1", "create web-1"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// prefixes: log entries match want one for one by prefix.
func prefixes(log, want []string) bool {
	if len(log) != len(want) {
		return false
	}
	for i := range want {
		if !strings.HasPrefix(log[i], want[i]) {
			return false
		}
	}
	return true
}

// A replica that comes back after a scale-down says it reuses a retained volume;
// one replaced by an update does not.
func TestStaleVolumeReported(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	if slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "reuses") }) {
		t.Fatalf("an update reported reuse: %v", *events)
	}
	apply(t, c.Store, 1, "v2")
	converge(t, c)
	*events = nil
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	var stale []string
	for _, e := range *events {
		if strings.Contains(e, "reuses volume") {
			stale = append(stale, e)
		}
	}
	if len(stale) != 2 || !strings.HasPrefix(stale[0], "web-1 reuses volume data-web-1 (created ") ||
		!strings.Contains(stale[0], "last used by revision web-") {
		t.Fatalf("stale volume messages %q", stale)
	}
}

// A create that failed after it made the replica's volume (its start
// refused: a network removed meanwhile) leaves the volume as the replica's:
// the retry that reuses it a moment later says nothing of it.
func TestRetryAfterAFailedStartIsNoVolumeNews(t *testing.T) {
	rt := enginetest.New()
	rt.FailStart = 1
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	if !slices.Contains(rt.Log, "start web-0 failed") {
		t.Fatalf("the injected failure did not happen: %v", rt.Log)
	}
	if slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "reuses") }) {
		t.Fatalf("the retry of a failed create reported reuse: %q", *events)
	}
}

// badRollout converges a 2-replica set at v1 on a clock that ticks a second per
// reading, then starts a rollout to an image that never becomes healthy.
func badRollout(t *testing.T, deadline int, autoRollback bool) (*engine.Controller, *enginetest.Runtime, state.State, *[]string) {
	t.Helper()
	rt := enginetest.New()
	rt.Unhealthy = map[string]bool{"sha256:bad": true}
	c, events := newController(t, rt, 2, "v1")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	c.WatchGap = time.Hour // the clock runs far faster than the loop
	converge(t, c)
	good, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		st.Spec.UpdateStrategy.ProgressDeadlineSeconds = ptr(deadline)
		st.Spec.UpdateStrategy.AutoRollback = autoRollback
		st.Spec.Template.Image = "bad"
		st.SetUpdateRevision(st.Spec.RevisionSpec("sha256:bad"), "test", clock)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return c, rt, good, events
}

// A rollout to an image that never becomes healthy misses its progress deadline
// and, with autoRollback, goes back to the last complete revision by itself.
func TestProgressDeadlineAutoRollback(t *testing.T) {
	c, rt, good, events := badRollout(t, 5, true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rb *engine.RollbackError
	if err := c.Converge(ctx, "web"); !errors.As(err, &rb) || rb.To != good.UpdateRevision {
		t.Fatalf("converge: %v, want a rollback to %s; events %v", err, good.UpdateRevision, *events)
	}
	st, _ := c.Store.Load("web")
	if st.UpdateRevision != good.UpdateRevision || st.CurrentRevision != good.UpdateRevision || st.RollingBackFrom != "" {
		t.Errorf("after rollback: update %s current %s rollingBackFrom %q", st.UpdateRevision, st.CurrentRevision, st.RollingBackFrom)
	}
	obs, _ := rt.Observe(ctx, "web", engine.ObserveOptions{})
	for _, r := range obs.Replicas {
		if r.Revision != good.UpdateRevision || r.Health == plan.HealthUnhealthy {
			t.Errorf("%s at %s (%s) after the rollback", r.Name, r.Revision, r.Health)
		}
	}
}

// Without autoRollback the rollout is only marked failed.
func TestProgressDeadlineCondition(t *testing.T) {
	c, _, _, _ := badRollout(t, 3, false)
	for range 10 {
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
	}
	s, _, err := c.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(s.Conditions, func(c plan.Condition) bool {
		return c.Type == "Progressing" && c.Status == "False" && c.Reason == "ProgressDeadlineExceeded"
	}) {
		t.Errorf("conditions %+v lack Progressing=False ProgressDeadlineExceeded", s.Conditions)
	}
}

func ptr[T any](v T) *T { return &v }

// A delete cut short is finished by the next pass, never undone by it.
func TestInterruptedDeleteIsFinished(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.FailRemove = "web-1"
	rt.Log = nil
	if err := c.Delete(context.Background(), "web", true); err == nil {
		t.Fatal("delete with a failing remove succeeded")
	}
	if _, err := c.Pass(context.Background(), "web"); !errors.Is(err, state.ErrUnknownSet) {
		t.Fatalf("pass after an interrupted delete: %v, want the set gone", err)
	}
	want := []string{"remove web-2", "remove web-1", "remove web-0", "remove volume", "remove volume", "remove volume"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// A wait on a set whose delete was interrupted finishes the delete and says
// so (a *DeletedError that is Finished), rather than calling the set unknown; a
// set deleted by another command while one waited is not Finished.
func TestConvergeFinishesAnInterruptedDelete(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.FailRemove = "web-0"
	if err := c.Delete(context.Background(), "web", true); err == nil {
		t.Fatal("delete with a failing remove succeeded")
	}
	rt.FailRemove = ""
	err := c.Converge(context.Background(), "web")
	var deleted *engine.DeletedError
	if !errors.As(err, &deleted) || !deleted.Finished || errors.Is(err, state.ErrUnknownSet) {
		t.Fatalf("converge of a set being deleted: %v, want a finished *DeletedError", err)
	}
	if err := c.Converge(context.Background(), "web"); !errors.Is(err, state.ErrUnknownSet) {
		t.Fatalf("converge of a deleted set: %v, want ErrUnknownSet", err)
	}
}

// A removal a pass recorded and did not see through (here it failed; a
// killed process is the same: the container may have been sent its stop) is
// finished by the next pass even when the replica is wanted again by then: the
// rollout to v2 is undone back to v1, the revision web-2 still runs.
func TestInterruptedRemovalIsFinished(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 3, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	rt.FailRemove = "web-2"
	rt.Log = nil
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("a pass with a failing remove succeeded")
	}
	if st, _ := c.Store.Load("web"); len(st.Removing) != 1 {
		t.Fatalf("state after the failed removal: removing %v, want web-2's container", st.Removing)
	}
	apply(t, c.Store, 3, "v1")
	converge(t, c)
	if want := []string{"remove web-2", "create web-2"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if !slices.ContainsFunc(*events, func(e string) bool { return e == "web-2 removed (its removal was interrupted)" }) {
		t.Errorf("events %v: no word of the finished removal", *events)
	}
	if st, _ := c.Store.Load("web"); len(st.Removing) != 0 {
		t.Errorf("removing %v after the removal finished", st.Removing)
	}
}

// A replica that keeps exiting is recreated at once the first time, then only
// after a growing back-off; the pass that removes it creates its replacement.
func TestCrashLoopBackoff(t *testing.T) {
	rt := enginetest.New()
	rt.Crashing = map[string]bool{"sha256:crash": true}
	c, _ := newController(t, rt, 1, "crash")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	pass := func() plan.Plan {
		t.Helper()
		p, err := c.Pass(context.Background(), "web")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pass() // create
	pass() // exited: remove and create, first time at once
	if want := []string{"create web-0", "remove web-0", "create web-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v: the pass that removes a replica that exited creates it again", rt.Log, want)
	}
	if p := pass(); len(p.Actions) != 0 || !strings.Contains(p.String(), "crash-loop back-off") {
		t.Fatalf("second failure within the back-off: plan\n%s", p)
	}
	clock = clock.Add(11 * time.Second)
	if p := pass(); len(p.Actions) != 1 || !p.Actions[0].Failed {
		t.Fatalf("after the back-off: plan\n%s", p)
	}
	if want := []string{"create web-0", "remove web-0", "create web-0", "remove web-0", "create web-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// A replica that runs a moment and exits, again and again, is recreated at once
// the first time, then after 10 s, 20 s, 40 s … up to 5 min after the recreation
// before; the count survives a new process (it is in the state), and starts
// again only once the replica has been seen ready for 10 minutes.
func TestCrashLoopBackoffGrowsUntilTheReplicaRunsWell(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 1, "v1")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	c.Now = now
	pass := func() plan.Plan {
		t.Helper()
		p, err := c.Pass(context.Background(), "web")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	recreated := func(p plan.Plan) bool {
		return len(p.Actions) == 1 && p.Actions[0].Failed && p.Actions[0].Name == "web-0"
	}
	pass() // create
	// crash runs the replica for 2 s (a pass sees it ready), lets it exit,
	// and returns how long after the last recreation the next one comes, or
	// 0 if it comes at once.
	const reset = 10 * time.Minute
	var last time.Time
	crash := func() time.Duration {
		t.Helper()
		if p := pass(); len(p.Actions) != 0 || !p.Complete {
			t.Fatalf("the replica is not running and ready: plan\n%s", p)
		}
		clock = clock.Add(2 * time.Second)
		rt.Exit("web-0")
		waited := time.Duration(0)
		p := pass()
		if !recreated(p) {
			if p.RequeueAt.IsZero() || !strings.Contains(p.String(), "crash-loop back-off") {
				t.Fatalf("a failed replica neither recreated nor held back: plan\n%s", p)
			}
			s, _, err := c.Status(context.Background(), "web")
			if err != nil {
				t.Fatal(err)
			}
			if cl := s.Containers[0].CrashLoop; cl == nil || !cl.NextTry.Equal(p.RequeueAt) || cl.Recreations == 0 {
				t.Fatalf("status of a replica in back-off: crash loop %+v, want the next try at %s", cl, p.RequeueAt)
			}
			clock = p.RequeueAt.Add(-time.Millisecond)
			if p := pass(); len(p.Actions) != 0 {
				t.Fatalf("recreated before its back-off ended: plan\n%s", p)
			}
			clock = p.RequeueAt
			if p := pass(); !recreated(p) {
				t.Fatalf("not recreated when its back-off ended: plan\n%s", p)
			}
			waited = clock.Sub(last)
		}
		last = clock
		pass() // create
		return waited
	}
	if d := crash(); d != 0 {
		t.Errorf("the first failure was held back %s after the replica's creation, want none", d)
	}
	for i, want := range []time.Duration{10, 20, 40, 80, 160, 300, 300} {
		if i == 3 { // a new process goes on with the count in the state
			c = &engine.Controller{Runtime: rt, Store: c.Store, Now: now}
		}
		if got := crash(); got != want*time.Second {
			t.Errorf("recreation %d came %s after the one before, want %s", i+2, got, want*time.Second)
		}
	}
	// Ready for just under 10 minutes: recreated at once (its back-off
	// ended long ago), and the count holds, so the next quick exit waits 5 min.
	pass()
	clock = clock.Add(reset - 3*time.Second)
	if got := crash(); got != 0 {
		t.Errorf("after a replica ran for over 5 min, recreated %s after the one before, want at once", got)
	}
	if got := crash(); got != 5*time.Minute {
		t.Errorf("after a replica ready for under 10 min, the next recreation came %s after the one before, want the 5 min back-off", got)
	}
	// Ready for 10 minutes: the count starts again.
	pass()
	clock = clock.Add(reset)
	if got := crash(); got != 0 {
		t.Errorf("after a replica ready for 10 min, recreated %s after the one before, want at once", got)
	}
	if got := crash(); got != 10*time.Second {
		t.Errorf("after a replica ready for 10 min, the next recreation came %s after the one before, want 10s", got)
	}
	// ostset recreate starts the count again, as deleting a pod does.
	if err := c.Recreate(context.Background(), "web", []int{0}); err != nil {
		t.Fatal(err)
	}
	pass() // create
	if got := crash(); got != 0 {
		t.Errorf("after ostset recreate, recreated %s after the one before, want at once", got)
	}
}

// ostset recreate records the removal it starts, as a pass does: cut short
// after the record, the replica is still seen as being removed, and the next
// pass finishes the removal instead of counting the replica ready.
func TestRecreateRecordsItsRemoval(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	rt.FailRemove = "web-1" // the command dies after its record, before web-1 is removed
	if err := c.Recreate(context.Background(), "web", []int{1}); err == nil {
		t.Fatal("Recreate with a failing remove: no error")
	}
	if st, err = c.Store.Load("web"); err != nil {
		t.Fatal(err)
	}
	if len(st.Removing) != 1 {
		t.Fatalf("after a recreate cut short, removals recorded: %v, want web-1's", st.Removing)
	}
	converge(t, c)
	if st, err = c.Store.Load("web"); err != nil {
		t.Fatal(err)
	}
	if len(st.Removing) != 0 {
		t.Errorf("after the next passes, removals still recorded: %v", st.Removing)
	}
}

// A network the engine will not remove for stale endpoints does not keep a
// delete from finishing: it is left behind with a warning that says how to
// clear it. Any other failure to remove the network still fails the delete.
func TestDeleteLeavesANetworkWithStaleEndpoints(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	refused := errors.New("error while removing network: network ostset id 0123456789abcdef has active endpoints")
	rt.RemoveNetworkErr = &engine.StaleEndpointsError{Network: "ostset", ID: "0123456789abcdef", Err: refused}
	if err := c.Delete(context.Background(), "web", false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.Store.Load("web"); !errors.Is(err, state.ErrUnknownSet) {
		t.Fatalf("after the delete the set is still stored: %v", err)
	}
	if !slices.ContainsFunc(*events, func(e string) bool {
		return strings.Contains(e, "network ostset (id 0123456789ab) left behind") &&
			strings.Contains(e, "docker network inspect ostset") && strings.Contains(e, "docker network disconnect -f ostset")
	}) {
		t.Fatalf("no warning naming the network and the way to clear it in %q", *events)
	}

	apply(t, c.Store, 1, "v1")
	converge(t, c)
	rt.RemoveNetworkErr = errors.New("engine unreachable")
	if err := c.Delete(context.Background(), "web", false); err == nil {
		t.Fatal("delete succeeded although the network could not be removed")
	}
}

// A container that is not the set's holding a replica's name ends a wait with
// a *ConflictError once nothing else is left to do, instead of waiting for a
// person; the set's other replicas are created first. Once the name is free,
// the set converges.
func TestConvergeStopsAtAForeignContainer(t *testing.T) {
	rt := enginetest.New()
	rt.Foreign = []plan.Foreign{{ID: "0123456789abcdef", Name: "web-1"}}
	c, _ := newController(t, rt, 3, "v1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Converge(ctx, "web")
	var conflict *engine.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("converge: %v, want a *ConflictError", err)
	}
	for _, want := range []string{"rollout of web cannot go on", "web-1: the name is held by container 0123456789ab", "remove or rename it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(rt.Log) != 1 || !prefixes(rt.Log, []string{"create web-0"}) {
		t.Fatalf("log %v, want only web-0 created", rt.Log)
	}
	rt.Foreign = nil
	converge(t, c)
}

// status shows a replica whose recorded removal has not finished, until a pass
// finishes it.
func TestStatusShowsPendingRemoval(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	rt.FailRemove = "web-2"
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("a pass with a failing remove succeeded")
	}
	s, _, err := c.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range s.Containers {
		if (cs.RemovalPending != nil) != (cs.Name == "web-2") {
			t.Errorf("%s: removal pending %v", cs.Name, cs.RemovalPending)
		}
	}
	converge(t, c)
	s, _, _ = c.Status(context.Background(), "web")
	for _, cs := range s.Containers {
		if cs.RemovalPending != nil {
			t.Errorf("%s: removal pending after the removal finished", cs.Name)
		}
	}
}

// A delete cut short says what it recorded and how to finish or cancel it; the
// next down says, before it removes any volume, that it finishes a delete that
// removes the volumes, although it was not given --volumes itself.
func TestUnfinishedDeleteIsSaid(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.FailRemove = "web-1"
	err := c.Delete(context.Background(), "web", true)
	var unfinished *engine.UnfinishedDeleteError
	if !errors.As(err, &unfinished) {
		t.Fatalf("delete with a failing remove: %v, want an UnfinishedDeleteError", err)
	}
	for _, want := range []string{"injected failure", "the delete of web is recorded (its volumes data-web-0, data-web-1, data-web-2 are removed too)",
		"'ostset down web' finishes it", "'ostset up -f FILE' cancels it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	*events = nil
	if err := c.Delete(context.Background(), "web", false); err != nil {
		t.Fatal(err)
	}
	said := slices.IndexFunc(*events, func(e string) bool {
		return e == "finishing the delete of web that an earlier 'ostset down --volumes' (or whenDeleted: Delete) began: its volumes data-web-0, data-web-1, data-web-2 are removed too"
	})
	removed := slices.IndexFunc(*events, func(e string) bool { return strings.HasPrefix(e, "volume ") })
	if said < 0 || removed < 0 || said > removed {
		t.Errorf("events %q: the resumed delete is not said before a volume is removed", *events)
	}
}

// A wait that ends while an exited replica is being recreated (up's timeout,
// Ctrl-C) still creates the replacement: the ordinal is not left empty until
// some later pass.
func TestRecreateOutlivesTheEndOfTheWait(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Exit("web-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt.OnRemove = func(name string) {
		if name == "web-1" {
			cancel()
		}
	}
	rt.Log = nil
	_ = c.Converge(ctx, "web")
	if want := []string{"remove web-1", "create web-1"}; len(rt.Log) < 2 || !prefixes(rt.Log[:2], want) {
		t.Fatalf("log %v, want it to start with %v", rt.Log, want)
	}
}

// The crash-loop back-off belongs to the revision that keeps failing: a
// fixed template is created at once, with a back-off of its own starting
// afresh, rather than after the broken revision's.
func TestCrashLoopBackoffEndsWithItsRevision(t *testing.T) {
	rt := enginetest.New()
	rt.Crashing = map[string]bool{"sha256:crash": true}
	c, _ := newController(t, rt, 1, "crash")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	pass := func() plan.Plan {
		t.Helper()
		p, err := c.Pass(context.Background(), "web")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pass()        // create
	for range 4 { // recreated at once, then after 10 s, 20 s, 40 s
		p := pass()
		if !p.RequeueAt.IsZero() {
			clock = p.RequeueAt
			p = pass()
		}
		if len(p.Actions) != 1 || !p.Actions[0].Failed {
			t.Fatalf("crash loop: plan\n%s", p)
		}
	}
	if p := pass(); !strings.Contains(p.String(), "recreating it in 1m20s (crash-loop back-off)") {
		t.Fatalf("the broken revision's back-off: plan\n%s", p)
	}
	apply(t, c.Store, 1, "fixed")
	st, _ := c.Store.Load("web")
	p := pass()
	if len(p.Actions) != 1 || !p.Actions[0].Failed || p.Actions[0].Recreate != st.UpdateRevision {
		t.Fatalf("a fixed template waited for the broken revision's back-off: plan\n%s", p)
	}
	st, _ = c.Store.Load("web")
	if cl := st.CrashLoops[0]; cl.Count != 0 || !cl.After.IsZero() || cl.Revision != st.UpdateRevision {
		t.Errorf("crash loop after the fix %+v: want a fresh one of %s", cl, st.UpdateRevision)
	}
	if p := pass(); len(p.Actions) != 0 || !p.Complete {
		t.Errorf("after the fix: plan\n%s", p)
	}
}

// The back-off of an ordinal scaled away is forgotten: a replica scaled back
// in later is a new one, recreated at once when it first exits.
func TestCrashLoopOfAnOrdinalScaledAwayIsForgotten(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return clock }
	pass := func() plan.Plan {
		t.Helper()
		p, err := c.Pass(context.Background(), "web")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pass()
	pass()
	for range 3 { // web-1 exits three times: its next recreation waits 20 s
		rt.Exit("web-1")
		p := pass()
		if !p.RequeueAt.IsZero() {
			clock = p.RequeueAt
			p = pass()
		}
		if len(p.Actions) != 1 || !p.Actions[0].Failed {
			t.Fatalf("crash: plan\n%s", p)
		}
	}
	if st, _ := c.Store.Load("web"); st.CrashLoops[1].Count != 3 {
		t.Fatalf("crash loops %+v, want web-1's count at 3", st.CrashLoops)
	}
	apply(t, c.Store, 1, "v1")
	pass() // scale down
	pass()
	if st, _ := c.Store.Load("web"); len(st.CrashLoops) != 0 {
		t.Errorf("crash loops after web-1 was scaled away: %+v", st.CrashLoops)
	}
	apply(t, c.Store, 2, "v1")
	pass() // web-1 created again
	rt.Exit("web-1")
	if p := pass(); len(p.Actions) != 1 || !p.Actions[0].Failed {
		t.Errorf("a replica scaled back in inherited the back-off of the one scaled away: plan\n%s", p)
	}
}

// A replica whose pre_stop hook fails is removed all the same, as the
// kubelet stops a container whose preStop hook failed: the failure is an
// event, and a scale-down completes.
func TestFailedPreStopRemovesTheReplica(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.FailPreStop = map[string]bool{"web-2": true}
	apply(t, c.Store, 1, "v1")
	converge(t, c)
	if got := rt.Replicas(); !slices.Equal(got, []string{"web-0"}) {
		t.Errorf("replicas after the scale-down: %v, want web-0", got)
	}
	if !slices.ContainsFunc(*events, func(e string) bool {
		return strings.Contains(e, "web-2: pre_stop hook 0 (drain): exited with status 1 (stopped all the same)")
	}) {
		t.Errorf("events %q: want the pre_stop failure", *events)
	}
}
