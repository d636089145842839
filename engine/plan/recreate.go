package plan

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/health"
)

// recreate is the Recreate update strategy, as Kubernetes' StatefulSet
// controller has it (v1.37, alpha, recreateDeleteAndWait): every container of
// the set at a revision other than the update revision (a replica in or out
// of the range, in any state, and an init container) is removed, all at once
// whatever the pod management policy, their readiness or minReadySeconds; while
// any of them remains (or is being removed) nothing else is done, so the old
// and the new revision never run at the same time. Replicas already at the
// update revision are kept. Once the last old one is gone, the rest of the
// plan creates the new replicas in podManagementPolicy order. A paused rollout
// removes nothing (Held); the rest of the plan goes on, and a replica it
// creates meanwhile is created at the current revision (revisionFor). It
// reports whether the rest of the plan may run.
func (p *planner) recreate() bool {
	if p.set.UpdateStrategy.Type != config.Recreate {
		return true
	}
	old := p.oldRevisionContainers()
	if old == 0 {
		return true
	}
	if p.in.Paused {
		p.plan.Held = fmt.Sprintf("rollout paused with %d containers not at %s (Recreate)", old, p.in.UpdateRevision)
		p.recreateHeld = true
		return true
	}
	removing := 0
	for _, r := range p.in.Observed.Replicas {
		switch {
		case r.Revision == p.in.UpdateRevision:
		case r.State == StateRemoving:
			removing++
		case len(p.inits[r.Ordinal]) > 0:
			// Its init containers go first (leftoverInits, condemnedInits).
			removing += p.recreateInits(p.inits[r.Ordinal], true)
		default:
			// Not a scale-down (Releases false), even out of the range: as
			// Kubernetes marks for deletion only the claims of the pods its
			// scale-down reaches, whenScaled: Delete keeps these volumes.
			p.act(Action{Kind: ActDelete, Ordinal: r.Ordinal, Name: r.Name, ID: r.ID, Revision: r.Revision,
				Exited: health.Failed(hc(&r)), Reason: fmt.Sprintf("Recreate %s -> %s: every old replica goes before any new one is created", r.Revision, p.in.UpdateRevision)})
		}
	}
	for _, c := range p.in.Observed.Inits {
		if !p.byOrdinal.has(c.Ordinal) {
			removing += p.recreateInits([]InitContainer{c}, false)
		}
	}
	if removing > 0 {
		p.wait("%d containers of older revisions being removed (Recreate)", removing)
	}
	return false
}

// oldRevisionContainers counts the set's replicas and init containers at a
// revision other than the update revision.
func (p *planner) oldRevisionContainers() int {
	n := 0
	for _, r := range p.in.Observed.Replicas {
		if r.Revision != p.in.UpdateRevision {
			n++
		}
	}
	for _, c := range p.in.Observed.Inits {
		if c.Revision != p.in.UpdateRevision {
			n++
		}
	}
	return n
}

// recreateInits removes init containers for Recreate: those of an older
// revision, or all (all: their replica is to go, and they go first). Those of
// an ordinal out of the range are condemnedInits'. It returns how many are
// being removed already.
func (p *planner) recreateInits(cs []InitContainer, all bool) int {
	removing := 0
	for _, c := range cs {
		switch {
		case c.State == StateRemoving:
			removing++
		case !all && c.Revision == p.in.UpdateRevision, !p.inRange(c.Ordinal):
		default:
			p.act(Action{Kind: ActDeleteInit, Ordinal: c.Ordinal, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision,
				Reason: fmt.Sprintf("Recreate %s -> %s", c.Revision, p.in.UpdateRevision)})
		}
	}
	return removing
}
