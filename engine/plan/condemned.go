package plan

import (
	"slices"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

// The volumes a scale-down condemns (Input.CondemnedVolumes): under
// whenScaled: Delete, the ordinals whose replica a scale-down removes are
// recorded before the removal; their volumes are removed once the container
// is gone (see planner.volumes), and the record with them.

// Condemn returns condemned (sorted) with the ordinals that the actions
// release added, when set's whenScaled is Delete, and reports whether it
// added any. A replica still initializing is condemned as well (a pod in
// Kubernetes).
func Condemn(set config.Set, condemned []int, actions []Action) ([]int, bool) {
	added := false
	for _, a := range actions {
		if a.Kind != ActDelete && a.Kind != ActDeleteInit {
			continue
		}
		if a.Releases && set.PersistentVolumeClaimRetentionPolicy.WhenScaled == volumes.Delete && !slices.Contains(condemned, a.Ordinal) {
			condemned = append(condemned, a.Ordinal)
			slices.Sort(condemned)
			added = true
		}
	}
	return condemned, added
}

// SettleCondemned drops the ordinals of condemned that are settled: the
// ordinal is back in the range (a scale up reuses its volumes), whenScaled is
// no longer Delete, or neither its container nor any of its volumes is left
// in obs (the whenScaled rule removed them).
func SettleCondemned(set config.Set, condemned []int, obs Observed) []int {
	condemned = slices.DeleteFunc(condemned, func(ord int) bool {
		left := slices.ContainsFunc(obs.Replicas, func(r Replica) bool { return r.Ordinal == ord }) ||
			slices.ContainsFunc(obs.Volumes, func(v Volume) bool { return v.Ordinal == ord })
		return (ord >= set.FirstOrdinal() && ord < set.EndOrdinal()) ||
			set.PersistentVolumeClaimRetentionPolicy.WhenScaled != volumes.Delete || !left
	})
	if len(condemned) == 0 {
		return nil
	}
	return condemned
}
