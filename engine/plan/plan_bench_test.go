package plan

import (
	"strconv"
	"testing"
)

// The planner runs once per reconcile pass (and per Docker event in the daemon),
// so its cost bounds how often a set can be re-planned. These benchmarks build
// the observed state once, outside the timed loop, with the helpers of
// plan_test.go; the numbers are in docs/benchmarks.md (`make bench`).

// benchPlan checks that in plans want once (so the benchmark measures the case it
// names), then times MakePlan(in).
func benchPlan(b *testing.B, in Input, want string) {
	b.Helper()
	if got := MakePlan(in).String(); got != want {
		b.Fatalf("plan:\n%s\nwant:\n%s", got, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		MakePlan(in)
	}
}

// BenchmarkMakePlanConverged: every replica exists, is healthy and at the
// update revision; the plan is empty and the rollout complete. This is the
// steady-state cost: a full walk of the ordinals with nothing to do.
func BenchmarkMakePlanConverged(b *testing.B) {
	for _, n := range []int{3, 10, 100, 1000, 10000} {
		b.Run("replicas="+strconv.Itoa(n), func(b *testing.B) {
			in := Input{Set: testSet(replicas(n)), CurrentRevision: "b", UpdateRevision: "b",
				Observed: Observed{Replicas: okN(n, "b")}, Now: t0}
			benchPlan(b, in, "complete\n")
		})
	}
}

// BenchmarkMakePlanRollingUpdate: 100 replicas, OrderedReady, RollingUpdate from
// revision a to b, half-way through: web-50..web-99 already replaced and
// healthy, web-0..web-49 still at a. The plan walks every ordinal, then the
// update phase picks the next one to replace (web-49).
func BenchmarkMakePlanRollingUpdate(b *testing.B) {
	const n = 100
	obs := Observed{Replicas: append(okN(n/2, "a"), okN(n, "b")[n/2:]...)}
	in := Input{Set: testSet(replicas(n)), CurrentRevision: "a", UpdateRevision: "b", Observed: obs, Now: t0}
	benchPlan(b, in, "delete web-49: update a -> b\n")
}
