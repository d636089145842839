package plan

import "testing"

// A replica being removed is neither current nor updated, as Kubernetes
// leaves a terminating pod out of both counts; it is still counted among the
// replicas that exist.
func TestStatusLeavesRemovingOutOfRevisionCounts(t *testing.T) {
	removing := ok(2, "b")
	removing.State, removing.Health = StateRemoving, HealthNone
	in := Input{Set: testSet(), CurrentRevision: "a", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "b"), removing}}}
	s := MakePlan(in).Status
	if s.CurrentReplicas != 1 || s.UpdatedReplicas != 1 || len(s.Containers) != 3 {
		t.Errorf("current %d, updated %d, containers %d; want 1, 1, 3", s.CurrentReplicas, s.UpdatedReplicas, len(s.Containers))
	}
}
