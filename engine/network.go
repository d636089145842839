package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// StaleEndpointsError is what Runtime.RemoveNetwork returns when the engine
// refuses to remove a network for active endpoints while no container is
// attached to it: endpoints the engine kept after their containers went (seen
// after many containers were created at once). Nothing ostset can do clears
// them safely, so a delete leaves the network behind with a warning instead of
// failing for ever (see removeNetwork).
type StaleEndpointsError struct {
	Network string
	ID      string
	Err     error // the engine's answer
}

func (e *StaleEndpointsError) Error() string {
	return fmt.Sprintf("network %s (id %s) has endpoints but no container attached: %v", e.Network, plan.ShortID(e.ID), e.Err)
}

func (e *StaleEndpointsError) Unwrap() error { return e.Err }

// Warning says what was left behind and how to clear it by hand.
func (e *StaleEndpointsError) Warning() string {
	return fmt.Sprintf("warning: network %s (id %s) left behind: Docker reports active endpoints but no container is attached to it (stale endpoints); "+
		"list them with 'docker network inspect %s', clear each with 'docker network disconnect -f %s ENDPOINT', then 'docker network rm %s'",
		e.Network, plan.ShortID(e.ID), e.Network, e.Network, e.Network)
}

// releaseNetworks removes the networks the set left (State.LeftNetworks) that
// none of its containers is at a revision on, nor attached to, any more: after
// a change of network has rolled, the old network goes, if ostset created it
// and no other container uses it (removeNetwork); a person's network, or one
// another set still uses, stays. Either way the set forgets it. obs must be
// current: the caller runs it after a pass that changed nothing. It reports
// whether st changed.
func (c *Controller) releaseNetworks(ctx context.Context, st *state.State, obs plan.Observed) (bool, error) {
	if len(st.LeftNetworks) == 0 {
		return false, nil
	}
	nets := make(map[string][]string, len(st.Revisions))
	for _, r := range st.Revisions {
		nets[r.Name] = r.Spec.NetworkNames()
	}
	used := func(n string) bool {
		for _, r := range obs.Replicas {
			if slices.Contains(nets[r.Revision], n) || slices.Contains(r.Networks, n) {
				return true
			}
		}
		return slices.ContainsFunc(obs.Inits, func(x plan.InitContainer) bool { return slices.Contains(nets[x.Revision], n) })
	}
	kept := st.LeftNetworks[:0:0]
	var errs []error
	for _, n := range st.LeftNetworks {
		if slices.Contains(st.Spec.NetworkNames(), n) || used(n) {
			kept = append(kept, n)
			continue
		}
		if _, err := c.removeNetwork(ctx, st.Spec.Name, n); err != nil {
			errs = append(errs, err)
			kept = append(kept, n)
		}
	}
	changed := len(kept) != len(st.LeftNetworks)
	st.LeftNetworks = kept
	if len(st.LeftNetworks) == 0 {
		st.LeftNetworks = nil
	}
	return changed, errors.Join(errs...)
}
