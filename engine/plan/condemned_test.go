package plan

import (
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
)

func whenScaled(policy string) func(*config.Set) {
	return func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = policy }
}

func dataVol(ord int) Volume {
	return Volume{Name: ReplicaName("data-web", ord), Claim: "data", Ordinal: ord}
}

// A pass that reaches the scale-down marks every replica outside the range
// for the removal of its volumes under whenScaled: Delete, not only the one
// it removes: a lower condemned replica deleted by hand before its turn, or
// one already being removed, takes its volumes along, as a condemned pod's
// claims go with it in Kubernetes whoever deletes it.
func TestScaleDownMarksEveryCondemnedReplica(t *testing.T) {
	removing := ok(2, "b")
	removing.State = StateRemoving
	in := Input{Set: testSet(replicas(1), whenScaled(config.Delete)), CurrentRevision: "b", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: []Replica{ok(0, "b"), ok(1, "b"), removing, ok(3, "b")},
			Volumes: []Volume{dataVol(0), dataVol(1), dataVol(2), dataVol(3)}}}
	p := MakePlan(in)
	if want := []int{1, 2, 3}; !slices.Equal(p.CondemnedVolumes, want) {
		t.Fatalf("marked %v, want %v (plan:\n%s)", p.CondemnedVolumes, want, p)
	}
	// web-1 deleted by hand, web-2 and web-3 still there: web-1's volume
	// goes (in OrderedReady that pass does nothing else).
	in.CondemnedVolumes = p.CondemnedVolumes
	in.Observed.Replicas = []Replica{ok(0, "b"), removing, ok(3, "b")}
	if got, want := MakePlan(in).String(), "delete-volume data-web-1: whenScaled: Delete\n"; got != want {
		t.Errorf("after web-1 went by hand:\n%s\nwant:\n%s", got, want)
	}
	// Under Retain the pass clears the marks of the replicas it finds
	// (web-1's stays: it is gone, its volume goes).
	in.Set = testSet(replicas(1), whenScaled(config.Retain), parallel)
	if p := MakePlan(in); !slices.Equal(p.CondemnedVolumes, []int{1}) || p.String() != "delete-volume data-web-1: whenScaled: Delete\ndelete web-3: scale down\nwait web-2 being removed\n" {
		t.Errorf("under Retain: marked %v, want [1]; plan:\n%s", p.CondemnedVolumes, p)
	}
	// A pass that does not reach the scale-down (web-0 not ready, in
	// OrderedReady) marks nothing, as Kubernetes' does not.
	in.Set = testSet(replicas(1), whenScaled(config.Delete))
	in.CondemnedVolumes = nil
	in.Observed.Replicas = []Replica{rep(0, "b", StateRunning, HealthStarting), ok(1, "b")}
	if p := MakePlan(in); p.CondemnedVolumes != nil {
		t.Errorf("blocked on web-0: marked %v, want none", p.CondemnedVolumes)
	}
}

// A marked volume goes once no container of its ordinal is left, under the
// policy and range of the pass that marked it: its replica gone, neither a
// switch to Retain nor a scale back up saves it (Kubernetes' garbage
// collector deleted the claim with the pod). A replica back in the range
// before it is gone keeps it.
func TestMarkedVolumeGoesWhateverPolicyAndRangeSince(t *testing.T) {
	in := Input{Set: testSet(replicas(2), whenScaled(config.Retain)), CurrentRevision: "b", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: okN(1, "b"), Volumes: []Volume{dataVol(0), dataVol(1)}}, CondemnedVolumes: []int{1}}
	in.CondemnedVolumes = SettleCondemned(in.Set, in.CondemnedVolumes, in.Observed)
	if got, want := MakePlan(in).String(), "delete-volume data-web-1: whenScaled: Delete\nwait web-1 not created until its old volumes are removed (whenScaled: Delete)\n"; got != want {
		t.Errorf("web-1 gone, back in the range under Retain:\n%s\nwant:\n%s", got, want)
	}
	// The next pass: the volume gone, the record with it; web-1 is created
	// (with a new volume), and a later removal of it by hand takes nothing.
	in.Observed.Volumes = in.Observed.Volumes[:1]
	if in.CondemnedVolumes = SettleCondemned(in.Set, in.CondemnedVolumes, in.Observed); in.CondemnedVolumes != nil {
		t.Errorf("record %v left once the volume is gone", in.CondemnedVolumes)
	}
	if got, want := MakePlan(in).String(), "create web-1 at b: missing\n"; got != want {
		t.Errorf("once the volume is gone:\n%s\nwant:\n%s", got, want)
	}
	// Its replica back in the range before it went: the mark is dropped.
	in.Observed.Replicas = okN(2, "b")
	if got := SettleCondemned(in.Set, []int{1}, in.Observed); got != nil {
		t.Errorf("web-1 back in the range alive: marked %v, want none", got)
	}
	// Nothing left of the ordinal: the mark is settled.
	in.Observed = Observed{Replicas: okN(1, "b"), Volumes: []Volume{dataVol(0)}}
	if got := SettleCondemned(in.Set, []int{1}, in.Observed); got != nil {
		t.Errorf("web-1 and its volume gone: marked %v, want none", got)
	}
	// Never while a container of the ordinal is left, init containers too.
	in.Set = testSet(replicas(1), whenScaled(config.Delete))
	in.Observed = Observed{Replicas: okN(1, "b"), Volumes: []Volume{dataVol(0), dataVol(1)},
		Inits: []InitContainer{{ID: "i1", Name: "web-1-init-clone", Ordinal: 1, Init: "clone", Revision: "b", State: StateRemoving}}}
	in.CondemnedVolumes = []int{1}
	if got := MakePlan(in).String(); got != "wait web-1-init-clone being removed\n" {
		t.Errorf("init container of web-1 left:\n%s", got)
	}
}
