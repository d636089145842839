package present

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// PausedShort says, for a paused set, that the rollout stopped short of the
// update revision: the ordinals it should update (at or above the
// partition) do not all run it. A wait on such a set ends (a paused set
// replaces nothing), but the rollout is not complete, and saying so first
// would mislead.
func PausedShort(st state.State, s plan.Status) bool {
	if !st.Paused || st.Spec.UpdateStrategy.Type == config.OnDelete {
		return false
	}
	want := st.Spec.EndOrdinal() - max(st.Spec.Partition(), st.Spec.FirstOrdinal())
	return s.UpdatedReplicas < max(0, want)
}

// PausedLine says where a paused rollout stopped and how it goes on.
func PausedLine(name string, s plan.Status) string {
	return fmt.Sprintf("%s: rollout paused: %d of %d replicas at revision %s; 'ostset rollout resume %s' goes on",
		name, s.UpdatedReplicas, s.Replicas, s.UpdateRevision, name)
}
