package engine

import (
	"context"
	"errors"
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

// ObserveVolumes observes the set's volumes (and its replicas, which use
// them) that are this state directory's: of a stored set, or of a deleted
// one whose volumes ostset down kept, found by their labels. stored says
// which; ErrUnknownSet when the set is neither.
func (c *Controller) ObserveVolumes(ctx context.Context, name string) (obs plan.Observed, stored bool, err error) {
	st, err := c.Store.Load(name)
	switch {
	case err == nil:
		stored = true
	case !errors.Is(err, state.ErrUnknownSet):
		return obs, false, err
	}
	_, obs, err = c.observe(ctx, name, st, ObserveOptions{}) // a deleted set: only this state directory's own
	if err != nil {
		return obs, false, err
	}
	if !stored && len(obs.Volumes) == 0 {
		return obs, false, c.Store.Unknown(name)
	}
	return obs, stored, nil
}
