package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/volumes"
)

// keptOnScaleDown says which volumes a scale-down keeps of the ordinal it
// removed (whenScaled: Retain), as "; volumes kept: data-web-2", so that a
// user knows the data is still there and where; "" when it keeps none.
func keptOnScaleDown(st *state.State, a plan.Action) string {
	if !a.Releases || len(st.Spec.VolumeClaimTemplates) == 0 || slices.Contains(st.CondemnedVolumes, a.Ordinal) {
		return ""
	}
	names := make([]string, len(st.Spec.VolumeClaimTemplates))
	for i, claim := range st.Spec.VolumeClaimTemplates {
		names[i] = volumes.Name(claim.Name, st.Spec.Name, a.Ordinal)
	}
	return fmt.Sprintf("; volumes kept: %s (ostset volumes %s)", strings.Join(names, ", "), st.Spec.Name)
}
