package oracle

import (
	"maps"
	"slices"
	"testing"
)

// Scenarios of Kubernetes' own stateful_set_control_test.go, run through the
// same comparison as the random histories: each event is followed by both
// controllers acting until quiet.

// event is one scripted change of the spec or of the world.
type event struct {
	name string
	do   func(w *world)
}

func scale(n int) event {
	return event{"scale", func(w *world) { w.sp.replicas = n }}
}

func template(v int) event {
	return event{"template", func(w *world) { w.sp.version = v }}
}

// brokenTemplate is a template whose replicas never become ready.
func brokenTemplate(v int) event {
	return event{"broken template", func(w *world) { w.sp.version, w.broken[v] = v, true }}
}

func partition(n int) event {
	return event{"partition", func(w *world) { w.sp.partition = n }}
}

func fail(ord int) event {
	return event{"fail", func(w *world) {
		r := w.replicas[ord]
		r.state, r.ready = failed, false
	}}
}

func sicken(ord int) event {
	return event{"sicken", func(w *world) {
		r := w.replicas[ord]
		r.sick, r.ready = true, false
	}}
}

func heal() event {
	return event{"heal", func(w *world) {
		for _, r := range w.replicas {
			r.sick = w.broken[r.version]
		}
	}}
}

func deleteByHand(ord int) event {
	return event{"delete", func(w *world) { w.remove(ord) }}
}

// scenario runs sp through the events and returns the rules of the known
// differences it met (a divergence of steps ends it); any other divergence
// fails t.
func scenario(t *testing.T, sp spec, events ...event) []string {
	t.Helper()
	gates(t)
	acceptedMu.Lock()
	before := maps.Clone(accepted)
	acceptedMu.Unlock()
	w := newWorld(sp)
	w.logf("start: %s", sp)
	run := func() bool { return check(t, w, w.settle()) }
	if !run() {
		for _, e := range events {
			e.do(w)
			w.record() // as ostset up does
			w.logf("event: %s", e.name)
			if run() {
				break
			}
		}
	}
	acceptedMu.Lock()
	defer acceptedMu.Unlock()
	var met []string
	for rule, n := range accepted {
		if n > before[rule] {
			met = append(met, rule)
		}
	}
	slices.Sort(met)
	return met
}

func base(replicas int) spec {
	return spec{replicas: replicas, maxUnavailable: "1", historyLimit: 10, version: 1}
}

func parallel(sp spec) spec { sp.parallel = true; return sp }

// withoutStatus leaves out the known differences of status.replicas, which
// every scale-up meets while it is under way.
func withoutStatus(met []string) []string {
	return slices.DeleteFunc(met, func(r string) bool { return r == desiredReplicasRule })
}

func expectNone(t *testing.T, met []string) {
	t.Helper()
	met = withoutStatus(met)
	if len(met) > 0 {
		t.Fatalf("known differences met: %v; want none", met)
	}
}

// CreatePods, ScalesUp, ScalesDown, ReplacesPods, RecreatesFailedPod.
func TestScenarioScale(t *testing.T) {
	for _, sp := range []spec{base(3), parallel(base(3))} {
		expectNone(t, scenario(t, sp, scale(5), scale(0), scale(3)))
	}
}

func TestScenarioReplacesPods(t *testing.T) {
	for _, sp := range []spec{base(5), parallel(base(5))} {
		expectNone(t, scenario(t, sp, deleteByHand(0), deleteByHand(2), deleteByHand(4)))
	}
}

// RecreatesSucceededPod too: a container that exits 0 is one that exited.
func TestScenarioRecreatesFailedPod(t *testing.T) {
	for _, sp := range []spec{base(3), parallel(base(3))} {
		expectNone(t, scenario(t, sp, fail(0), fail(2)))
	}
}

// Scale-up and scale-down halt on an unhealthy replica in OrderedReady, not
// in Parallel (burst).
func TestScenarioScaleWithUnhealthy(t *testing.T) {
	for _, sp := range []spec{base(3), parallel(base(3))} {
		expectNone(t, scenario(t, sp, sicken(1), scale(5), heal(), sicken(4), scale(2), heal()))
	}
}

// TestStatefulSetControlRollingUpdate, ...WithPartition, ...WithMaxUnavailable.
func TestScenarioRollingUpdate(t *testing.T) {
	for _, sp := range []spec{base(5), parallel(base(5))} {
		expectNone(t, scenario(t, sp, template(2)))
	}
}

func TestScenarioRollingUpdateWithPartition(t *testing.T) {
	sp := base(5)
	sp.partition = 2
	expectNone(t, scenario(t, sp, template(2), partition(0)))
	sp.partition = 4
	expectNone(t, scenario(t, parallel(sp), template(2), partition(1), partition(0)))
}

func TestScenarioRollingUpdateWithMaxUnavailable(t *testing.T) {
	sp := base(5)
	sp.maxUnavailable = "2"
	expectNone(t, scenario(t, sp, template(2)))
	sp.maxUnavailable = "50%"
	expectNone(t, scenario(t, parallel(sp), template(2)))
}

// TestStatefulSetControlRollingUpdateWithMaxUnavailableAndUnavailableStalePod:
// in Parallel, an old-revision replica that is already unavailable is
// replaced without counting it against maxUnavailable.
func TestScenarioParallelUnavailableStalePod(t *testing.T) {
	expectNone(t, scenario(t, parallel(base(3)), sicken(0), template(2)))
	sp := parallel(base(3))
	sp.maxUnavailable = "2"
	expectNone(t, scenario(t, sp, sicken(1), sicken(2), template(2)))
}

// TestStatefulSetOnDeleteStrategyIgnoresMinReadySeconds, and OnDelete
// replacing only what is deleted by hand.
func TestScenarioOnDelete(t *testing.T) {
	sp := base(3)
	sp.onDelete, sp.minReady = true, 2
	expectNone(t, scenario(t, sp, template(2), deleteByHand(1), deleteByHand(0)))
}

// Recreate (Kubernetes 1.37, alpha): every old replica goes before the
// first new one is created, in either policy, also with a scale-down, an
// unhealthy old replica and minReadySeconds.
func TestScenarioRecreateScaledAndMinReady(t *testing.T) {
	sp := base(3)
	sp.recreate = true
	expectNone(t, scenario(t, sp, template(2)))
	expectNone(t, scenario(t, parallel(sp), template(2), scale(1)))
	sp.minReady = 2
	expectNone(t, scenario(t, sp, sicken(1), template(2), scale(4)))
}

// TestStatefulSetRollingUpdateRespectsMinReadySeconds,
// TestStatefulSetScaleDownRespectsMinReadySeconds.
func TestScenarioMinReadySeconds(t *testing.T) {
	sp := base(3)
	sp.minReady = 3
	expectNone(t, scenario(t, sp, template(2), scale(1)))
}

// Claims: whenScaled Delete removes the claims of the ordinals a scale-down
// condemns, and only those.
func TestScenarioClaims(t *testing.T) {
	sp := base(4)
	sp.scaledDelete = true
	expectNone(t, scenario(t, sp, deleteByHand(3), scale(2), scale(4)))
	sp.scaledDelete = false
	expectNone(t, scenario(t, parallel(sp), scale(1), scale(3)))
}

// Kubernetes issue 67250: a rollout to a template whose replicas never
// become ready, then set back. Kubernetes waits on the broken replica until
// it is deleted by hand; ostset replaces it at once.
func TestScenarioAbandonedRevision(t *testing.T) {
	sp := base(3)
	met := withoutStatus(scenario(t, sp, brokenTemplate(2), template(1)))
	if !slices.Equal(met, []string{"a not-ready replica at an abandoned revision is replaced at once"}) {
		t.Fatalf("met %v", met)
	}
}

func startAt(n int) event {
	return event{"ordinals.start", func(w *world) { w.sp.start = n }}
}

func historyLimit(n int) event {
	return event{"revisionHistoryLimit", func(w *world) { w.sp.historyLimit = n }}
}

// TestStatefulSetControlWithStartOrdinal: a set whose ordinals start at 2,
// scaled, then moved to start at 0 and back.
func TestScenarioStartOrdinal(t *testing.T) {
	for _, sp := range []spec{base(3), parallel(base(3))} {
		sp.start = 2
		expectNone(t, scenario(t, sp, scale(5), scale(2), startAt(0), scale(4), startAt(1)))
	}
}

// TestStatefulSetControlRollback: a rollout, then the template set back to
// the earlier one (Kubernetes reuses its revision under a new number, as
// ostset does), with a partition too.
func TestScenarioRollback(t *testing.T) {
	for _, sp := range []spec{base(3), parallel(base(3))} {
		expectNone(t, scenario(t, sp, template(2), template(1), template(2)))
	}
	sp := base(4)
	sp.partition = 2
	expectNone(t, scenario(t, sp, template(2), template(3), template(1), partition(0)))
}

// TestStatefulSetHonorRevisionHistoryLimit, TestStatefulSetControlLimitsHistory:
// the revisions kept, compared after every pass; under OnDelete and with a
// partition the revisions replicas still run are kept besides the limit.
func TestScenarioRevisionHistoryLimit(t *testing.T) {
	sp := base(3)
	sp.historyLimit = 2
	expectNone(t, scenario(t, sp, template(2), template(3), template(4), template(5), historyLimit(0), template(2)))
	sp.onDelete = true
	expectNone(t, scenario(t, sp, template(2), deleteByHand(2), template(3), deleteByHand(1), template(4), historyLimit(1), template(5)))
	sp = base(4)
	sp.partition, sp.historyLimit = 2, 0
	expectNone(t, scenario(t, sp, template(2), partition(3), template(3), template(4), partition(0)))
}

// TestParallelScale: Parallel scale-up and scale-down in bursts, with
// replicas that are not ready.
func TestScenarioParallelScale(t *testing.T) {
	sp := parallel(base(0))
	expectNone(t, scenario(t, sp, scale(5), sicken(1), sicken(3), scale(1), scale(4), heal(), scale(0)))
}

// TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant:
// in OrderedReady an unavailable replica counts against maxUnavailable.
func TestScenarioOrderedMaxUnavailable(t *testing.T) {
	sp := base(5)
	sp.maxUnavailable = "2"
	expectNone(t, scenario(t, sp, sicken(1), template(2), heal()))
}

// TestStatefulSetPartitionRollingUpdateWithMinReadySeconds,
// TestStatefulSetZeroMinReadySeconds.
func TestScenarioPartitionWithMinReadySeconds(t *testing.T) {
	sp := base(4)
	sp.partition, sp.minReady = 2, 3
	expectNone(t, scenario(t, sp, template(2), partition(0)))
	sp.minReady = 0
	expectNone(t, scenario(t, parallel(sp), template(2), partition(1)))
}

// The claims a delete of the set leaves, under each retention policy
// (runTestOverPVCRetentionPolicies): after a scale-down cut short, and with
// a condemned replica removed by hand.
func TestScenarioDeleteTheSet(t *testing.T) {
	for _, scaled := range []bool{false, true} {
		for _, deleted := range []bool{false, true} {
			sp := base(4)
			sp.scaledDelete, sp.deletedDelete = scaled, deleted
			w := newWorld(sp)
			gates(t)
			w.logf("start: %s", sp)
			if check(t, w, w.settle()) {
				t.Fatal("diverged while starting")
			}
			w.sp.replicas = 1
			w.logf("event: scale to 1")
			if check(t, w, w.settleFor(1)) { // web-3 removed; web-1 and web-2 wait
				t.Fatal("diverged while scaling down")
			}
			w.remove(1)
			w.logf("event: %s-1 deleted by hand", setName)
			if check(t, w, w.settleFor(1)) {
				t.Fatal("diverged after the delete by hand")
			}
			check(t, w, w.deleteSet())
		}
	}
}

// TestStatefulSetControlRecreateUpdate, ...RecreateUpdatePreservesPVC: every
// old replica is removed before any new one is created, and the claims stay.
func TestScenarioRecreate(t *testing.T) {
	if !recreateSupported {
		t.Skip("ostset's set file does not take updateStrategy.type Recreate")
	}
	for _, sp := range []spec{base(3), parallel(base(3))} {
		sp.recreate = true
		expectNone(t, scenario(t, sp, template(2), sicken(1), template(3), heal(), scale(5), template(1)))
	}
}

// TestSettleKeepsWhatCameBeforeADivergenceOfSteps: the history a long run
// stopped at (-rapid.seed=11848679646546044206, history 195,918). A
// condemned web-3 at v2 completes Kubernetes' rollout (v2 current) a pass
// before ostset's, whose web-2 is missing (a documented difference of
// status.currentRevision); the next pass, under partition 4, each creates
// web-2 at its own current revision. That difference of steps is a
// consequence of the first, which the settling must report before it.
func TestSettleKeepsWhatCameBeforeADivergenceOfSteps(t *testing.T) {
	gates(t)
	sp := spec{replicas: 3, start: 2, maxUnavailable: "2", minReady: 1, version: 1}
	w := newWorld(sp)
	w.logf("start: %s", sp)
	steps := []struct {
		name   string
		do     func()
		passes int // 0: until quiet
	}{
		{"template changed to v2", func() { w.sp.version = 2; w.record() }, 2},
		{"ordinals.start 0", func() { w.sp.start = 0 }, 2},
		{"web-2 deleted by hand", func() { w.remove(2) }, 1},
		{"partition 4", func() { w.sp.partition = 4 }, 2},
	}
	if check(t, w, w.settle()) {
		t.Fatal("diverged while starting")
	}
	acceptedMu.Lock()
	before := accepted["a rollout completes on the desired ordinals, whatever is condemned"]
	acceptedMu.Unlock()
	for i, s := range steps {
		s.do()
		w.logf("event: %s", s.name)
		ds := w.settleFor(s.passes)
		if stop := check(t, w, ds); stop != (i == len(steps)-1) {
			t.Fatalf("after %q: the history ends %v, want %v", s.name, stop, i == len(steps)-1)
		}
	}
	acceptedMu.Lock()
	defer acceptedMu.Unlock()
	if accepted["a rollout completes on the desired ordinals, whatever is condemned"] != before+1 {
		t.Fatal("the difference of status.currentRevision was not met")
	}
}
