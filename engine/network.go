package engine

import "fmt"

// revisionNetworks is the network of each revision in st's history, by
// revision name (see Input.Networks).
func revisionNetworks(st State) map[string]string {
	out := make(map[string]string, len(st.Revisions))
	for _, r := range st.Revisions {
		out[r.Name] = r.Spec.Network
	}
	return out
}

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
	return fmt.Sprintf("network %s (id %s) has endpoints but no container attached: %v", e.Network, shortID(e.ID), e.Err)
}

func (e *StaleEndpointsError) Unwrap() error { return e.Err }

// Warning says what was left behind and how to clear it by hand.
func (e *StaleEndpointsError) Warning() string {
	return fmt.Sprintf("warning: network %s (id %s) left behind: Docker reports active endpoints but no container is attached to it (stale endpoints); "+
		"list them with 'docker network inspect %s', clear each with 'docker network disconnect -f %s ENDPOINT', then 'docker network rm %s'",
		e.Network, shortID(e.ID), e.Network, e.Network, e.Network)
}
