package plan

import (
	"slices"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

// The volumes that go with their replica (Input.CondemnedVolumes,
// Plan.CondemnedVolumes), as Kubernetes' controller makes a condemned pod the
// owner of its claims under whenScaled: Delete, and the garbage collector
// deletes them with the pod, whoever removes it.
//
// A pass that reaches the scale-down (every desired replica available, in
// OrderedReady) marks every ordinal it finds outside the range, replica or
// init containers, in any state: under whenScaled: Delete its volumes go
// with it, under Retain they stay (the mark is cleared). Once the ordinal
// has no container left, its volumes are removed (planner.volumes), under
// the policy and range of the pass that marked it: neither a switch to
// Retain nor a scale back up after the replica is gone saves them, as the
// garbage collector has deleted the claims by then. Only a replica back in
// the range before it is gone keeps them (SettleCondemned).

// condemn marks, or clears, the ordinal ord outside the range for the removal
// of its volumes with its replica, per the set's whenScaled.
func (p *planner) condemn(ord int) {
	marked := slices.Contains(p.plan.CondemnedVolumes, ord)
	switch del := p.set.PersistentVolumeClaimRetentionPolicy.WhenScaled == volumes.Delete; {
	case del && !marked:
		p.plan.CondemnedVolumes = append(slices.Clone(p.plan.CondemnedVolumes), ord)
		slices.Sort(p.plan.CondemnedVolumes)
	case !del && marked:
		p.plan.CondemnedVolumes = slices.DeleteFunc(slices.Clone(p.plan.CondemnedVolumes), func(o int) bool { return o == ord })
		if len(p.plan.CondemnedVolumes) == 0 {
			p.plan.CondemnedVolumes = nil
		}
	}
}

// volumes removes the volumes of the ordinals marked to lose them (see
// condemn) once no container of the ordinal is left, replica or init
// container: a volume no container uses. Any other volume (kept by ostset
// down, by a scale-down under Retain, or of an ordinal back in the range
// before its replica went) is left alone.
func (p *planner) volumes() {
	for _, v := range p.in.Observed.Volumes {
		if slices.Contains(p.in.CondemnedVolumes, v.Ordinal) && !p.byOrdinal.has(v.Ordinal) && len(p.inits[v.Ordinal]) == 0 {
			p.act(Action{Kind: ActDeleteVolume, Ordinal: v.Ordinal, Name: v.Name, Reason: "whenScaled: Delete"})
		}
	}
}

// removesVolumeOf: this pass removes volumes of ord (see volumes). An
// ordinal back in the range is created on the next pass, once they are gone
// and the record with them (SettleCondemned): its new replica gets new
// volumes, and a record spent is not taken for one still to carry out.
func (p *planner) removesVolumeOf(ord int) bool {
	return slices.ContainsFunc(p.plan.Actions, func(a Action) bool { return a.Kind == ActDeleteVolume && a.Ordinal == ord })
}

// SettleCondemned drops the ordinals of condemned that are settled: neither a
// container (replica or init container) nor a volume of the ordinal is left in
// obs (the volumes went), or the ordinal is back in the range while its
// replica (or its init containers) still exists: a scale back up before the
// replica is gone keeps its volumes.
func SettleCondemned(set config.Set, condemned []int, obs Observed) []int {
	condemned = slices.DeleteFunc(slices.Clone(condemned), func(ord int) bool {
		alive := slices.ContainsFunc(obs.Replicas, func(r Replica) bool { return r.Ordinal == ord }) ||
			slices.ContainsFunc(obs.Inits, func(c InitContainer) bool { return c.Ordinal == ord })
		volume := slices.ContainsFunc(obs.Volumes, func(v Volume) bool { return v.Ordinal == ord })
		return !alive && !volume || alive && ord >= set.FirstOrdinal() && ord < set.EndOrdinal()
	})
	if len(condemned) == 0 {
		return nil
	}
	return condemned
}

// VolumesOnDelete splits, for a delete of the set, the volumes of obs into
// those that go with their condemned replica (see condemn), whatever
// whenDeleted says, and the others, which whenDeleted (or down --volumes)
// decides on. obs is the set as the delete finds it, before it removes any
// replica.
func VolumesOnDelete(set config.Set, condemned []int, obs Observed) (withReplica, others []Volume) {
	condemned = SettleCondemned(set, condemned, obs)
	for _, v := range obs.Volumes {
		if slices.Contains(condemned, v.Ordinal) {
			withReplica = append(withReplica, v)
		} else {
			others = append(others, v)
		}
	}
	return withReplica, others
}
