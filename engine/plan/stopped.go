package plan

import (
	"slices"
	"sort"
)

// A stopped set (ostset stop, as docker compose stop): its replica containers
// are stopped, not removed, and kept with their volumes until ostset start
// (or ostset up) starts them again. Input.Stopped says the set is stopped,
// and Input.StoppedIDs names the containers it holds stopped: once the set
// is started, those are started again (ActStart), not recreated as the
// exited replicas they look like.

// stopped is the planner's rule for a stopped set: its running replicas are
// stopped from the highest ordinal down, as a scale-down removes them (one at
// a time under OrderedReady, all at once under Parallel), and init
// containers still running are removed (they run again when the replica is
// created). Nothing is created, started, recreated or replaced: not a
// replica that exited, not a missing one, not one at an old revision. It
// reports whether the set is stopped (the other rules are then skipped).
func (p *planner) stopped() bool {
	if !p.in.Stopped {
		return false
	}
	type step struct {
		ord int
		a   Action
	}
	var steps []step
	for _, r := range p.in.Observed.Replicas {
		switch r.State {
		case StateRunning, StateRestarting, StatePaused:
			steps = append(steps, step{r.Ordinal, Action{Kind: ActStop, Ordinal: r.Ordinal, Name: r.Name, ID: r.ID, Revision: r.Revision, Reason: "set stopped"}})
		case StateRemoving:
			p.wait("%s being removed", r.Name)
		}
	}
	for _, c := range p.in.Observed.Inits {
		if c.State == StateRunning || c.State == StateCreated || c.State == StateRestarting {
			steps = append(steps, step{c.Ordinal, Action{Kind: ActDeleteInit, Ordinal: c.Ordinal, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision, Reason: "set stopped"}})
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].ord > steps[j].ord })
	for _, s := range steps {
		p.act(s.a)
		if p.monotonic {
			break
		}
	}
	return true
}

// stoppedByCommand: a replica that ostset stop stopped (Input.StoppedIDs)
// and that is not running: once the set is started it is started again, in
// the order of the set's pod management policy (see replicaInRange), rather
// than recreated as a replica that exited.
func (p *planner) stoppedByCommand(r *Replica) bool {
	return (r.State == StateExited || r.State == StateCreated) && slices.Contains(p.in.StoppedIDs, r.ID)
}
