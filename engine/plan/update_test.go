package plan

import "testing"

// Parallel: an old replica that is unavailable anyway is replaced without
// spending maxUnavailable, which goes to the available ones (Kubernetes'
// two phases); OrderedReady counts both against it.
func TestParallelRolloutReplacesUnavailableOldReplicasFirst(t *testing.T) {
	in := Input{CurrentRevision: "a", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: []Replica{ok(0, "a"), rep(1, "a", StateRunning, HealthUnhealthy), ok(2, "a"), rep(3, "a", StateRunning, HealthUnhealthy)}}}
	in.Set = testSet(replicas(4), parallel, maxUnavailable("3"))
	want := "delete web-3: update a -> b\ndelete web-1: update a -> b\ndelete web-2: update a -> b\nwait web-1 not ready (health: unhealthy)\nwait web-3 not ready (health: unhealthy)\n"
	if got := MakePlan(in).String(); got != want {
		t.Errorf("Parallel, maxUnavailable 3:\n%s\nwant:\n%s", got, want)
	}
	// Two unavailable already and maxUnavailable 1: both replaced, nothing else.
	in.Set = testSet(replicas(4), parallel)
	if got, want := MakePlan(in).String(), "delete web-3: update a -> b\ndelete web-1: update a -> b\nwait web-1 not ready (health: unhealthy)\nwait web-3 not ready (health: unhealthy)\nwait 2 replicas unavailable (maxUnavailable 1)\n"; got != want {
		t.Errorf("Parallel, maxUnavailable 1:\n%s\nwant:\n%s", got, want)
	}
	// Below the partition nothing is replaced, unavailable or not.
	in.Set = testSet(replicas(4), parallel, partition(2))
	if got, want := MakePlan(in).String(), "delete web-3: update a -> b\nwait web-1 not ready (health: unhealthy)\nwait web-3 not ready (health: unhealthy)\nwait 2 replicas unavailable (maxUnavailable 1)\n"; got != want {
		t.Errorf("Parallel, partition 2:\n%s\nwant:\n%s", got, want)
	}
	// OrderedReady waits for them: web-1 not ready.
	in.Set = testSet(replicas(4), maxUnavailable("3"))
	if got, want := MakePlan(in).String(), "wait web-1 not ready (health: unhealthy)\n"; got != want {
		t.Errorf("OrderedReady:\n%s\nwant:\n%s", got, want)
	}
}
