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

// A rollout completes when every desired ordinal has a ready replica at the
// update revision, whatever the condemned replicas run: a condemned replica
// at the update revision does not stand in for a missing desired one (where
// Kubernetes' counts let it), so the missing replica is created at the
// current revision when the partition holds its ordinal back.
func TestRolloutCompletesOnTheDesiredOrdinals(t *testing.T) {
	in := Input{Set: testSet(partition(4)), CurrentRevision: "a", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: []Replica{ok(0, "b"), ok(1, "b"), ok(3, "b")}}}
	p := MakePlan(in)
	if p.Status.CurrentRevision != "a" {
		t.Errorf("web-2 missing, condemned web-3 at b: current %s, want a", p.Status.CurrentRevision)
	}
	if len(p.Actions) == 0 || p.Actions[0].Kind != ActCreate || p.Actions[0].Ordinal != 2 || p.Actions[0].Revision != "a" {
		t.Errorf("actions %v, want web-2 created at a first", p.Actions)
	}
	// With every desired ordinal at b and ready, b is current, though the
	// condemned web-3 still runs a.
	in.Observed.Replicas = []Replica{ok(0, "b"), ok(1, "b"), ok(2, "b"), ok(3, "a")}
	if s := MakePlan(in).Status; s.CurrentRevision != "b" {
		t.Errorf("desired ordinals at b, condemned web-3 at a: current %s, want b", s.CurrentRevision)
	}
}
