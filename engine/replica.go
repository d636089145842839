package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// NoReplicaError is a replica named as SET-ORDINAL (exec, logs, recreate)
// that has no container of the set's.
type NoReplicaError struct {
	Set, Name string
	// Outside: the ordinal is not one of the set's (it has Replicas from
	// First on), a name mistyped rather than a replica whose container is
	// missing for now; the caller's input is invalid.
	Outside         bool
	First, Replicas int
	// Existing names the set's replicas that have a container, by ordinal.
	Existing []string
}

func (e *NoReplicaError) Error() string {
	exist := "none has a container now"
	if len(e.Existing) > 0 {
		exist = "with a container: " + strings.Join(e.Existing, ", ")
	}
	if !e.Outside {
		return fmt.Sprintf("replica %s of set %s has no container now (%s; see ostset get %s)", e.Name, e.Set, exist, e.Set)
	}
	var has string
	switch e.Replicas {
	case 0:
		has = "it is scaled to 0"
	case 1:
		has = "its one replica is " + plan.ReplicaName(e.Set, e.First)
	case 2:
		has = "its 2 replicas are " + plan.ReplicaName(e.Set, e.First) + " and " + plan.ReplicaName(e.Set, e.First+1)
	default:
		has = fmt.Sprintf("its %d replicas are %s to %s", e.Replicas, plan.ReplicaName(e.Set, e.First), plan.ReplicaName(e.Set, e.First+e.Replicas-1))
	}
	return fmt.Sprintf("set %s has no replica %s: %s (%s)", e.Set, e.Name, has, exist)
}

// noReplica is the error for the set's ordinal that obs has no container of.
func noReplica(st state.State, obs plan.Observed, ordinal int) error {
	e := &NoReplicaError{Set: st.Spec.Name, Name: plan.ReplicaName(st.Spec.Name, ordinal),
		First: st.Spec.FirstOrdinal(), Replicas: st.Spec.DesiredReplicas()}
	e.Outside = ordinal < e.First || ordinal >= st.Spec.EndOrdinal()
	for _, r := range obs.Replicas {
		e.Existing = append(e.Existing, r.Name)
	}
	return e
}

// Replica returns the container of the set's replica at ordinal: a
// *NoReplicaError when the set has none (of its own; another state
// directory's is not the set's).
func (c *Controller) Replica(ctx context.Context, name string, ordinal int) (plan.Replica, error) {
	st, err := c.Store.Load(name)
	if err != nil {
		return plan.Replica{}, err
	}
	_, obs, err := c.observe(ctx, name, st, ObserveOptions{})
	if err != nil {
		return plan.Replica{}, err
	}
	for _, r := range obs.Replicas {
		if r.Ordinal == ordinal {
			return r, nil
		}
	}
	return plan.Replica{}, noReplica(st, obs, ordinal)
}
