package plan

import (
	"fmt"
	"slices"
)

// The planning rules for init containers (see init.go); docs/architecture.md
// "Planning rules" lists them with the others.

// initialized is the init container rule for an ordinal that has no replica
// container: the init containers of the revision the replica is created at run
// one at a time, in order, each to completion. Init containers of another
// revision, or that the revision does not have, are removed first. A missing one
// is created once those before it succeeded; one that runs is waited for; one
// that failed leaves the replica not ready and is removed and run again, at once
// the first time and then after the crash-loop back-off. It reports whether every
// init container succeeded, so that the replica container may be created;
// otherwise it has planned the next step or wait.
func (p *planner) initialized(ord int) bool {
	rev := p.revisionFor(ord)
	names := p.in.InitContainers[rev]
	replica := ReplicaName(p.set.Name, ord)
	for _, c := range p.inits[ord] {
		if c.Revision == rev && slices.Contains(names, c.Init) {
			continue
		}
		if c.State == StateRemoving {
			p.wait("%s being removed", c.Name)
			return false
		}
		p.act(Action{Kind: ActDeleteInit, Ordinal: ord, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision,
			Reason: fmt.Sprintf("at revision %s, and %s is created at %s", orDefault(c.Revision, "none"), replica, rev)})
		return false
	}
	for i, name := range names {
		c, ok := p.initOf(ord, name)
		switch {
		case !ok:
			container := InitContainerName(p.set.Name, ord, name)
			if f, taken := p.foreignInits[container]; taken {
				p.blocked(f)
				return false
			}
			p.act(Action{Kind: ActCreateInit, Ordinal: ord, Name: container, Init: name, Revision: rev,
				Reason: fmt.Sprintf("init container %d of %d", i+1, len(names))})
			return false
		case initDone(c):
			continue
		case initFailed(c):
			p.initFailed(c)
			return false
		case c.State == StateRemoving:
			p.wait("%s being removed", c.Name)
			return false
		case c.State == StateCreated:
			// A process stopped between create and start: run it afresh.
			p.act(Action{Kind: ActDeleteInit, Ordinal: ord, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision,
				Reason: "created but not started; it runs again"})
			return false
		default:
			p.wait("%s: init container %s %s", replica, name, c.State)
			return false
		}
	}
	return true
}

// initFailed handles a failed init container: it is kept for its output while
// the ordinal's back-off lasts, then removed to run again. The wait quotes its
// last line (progress reports the failure itself, with more).
func (p *planner) initFailed(c InitContainer) {
	if after := p.heldUntil(c.Ordinal, c.Revision); !after.IsZero() {
		p.wait("%s: init container %s exited with code %d%s; running it again after a back-off",
			ReplicaName(p.set.Name, c.Ordinal), c.Init, c.ExitCode, lastOutput(c.Logs))
		p.requeueAt(after)
		return
	}
	p.act(Action{Kind: ActDeleteInit, Ordinal: c.Ordinal, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision, Failed: true,
		Reason: fmt.Sprintf("exited with code %d; it runs again", c.ExitCode)})
}

// leftoverInits: once an ordinal's replica container exists, its init containers
// have done their work and are removed, before anything else is done to the
// replica. Were the replica removed while they remain, a pass could take them
// for the init containers of the next one. It reports whether there were any.
func (p *planner) leftoverInits(r Replica) bool {
	cs := p.inits[r.Ordinal]
	for _, c := range cs {
		if c.State == StateRemoving {
			p.wait("%s being removed", c.Name)
			continue
		}
		p.act(Action{Kind: ActDeleteInit, Ordinal: c.Ordinal, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision,
			Reason: fmt.Sprintf("%s exists", r.Name)})
	}
	return len(cs) > 0
}

// condemnedInits: the init containers of ordinals outside the desired range are
// removed at once, whatever the policy: they are not replicas, and nothing waits
// for them. A condemned replica container goes once its init containers are gone
// (see leftoverInits).
func (p *planner) condemnedInits() {
	for _, c := range p.in.Observed.Inits {
		if p.inRange(c.Ordinal) {
			continue
		}
		p.condemn(c.Ordinal)
		if c.State == StateRemoving {
			p.wait("%s being removed", c.Name)
			continue
		}
		p.act(Action{Kind: ActDeleteInit, Ordinal: c.Ordinal, Name: c.Name, ID: c.ID, Init: c.Init, Revision: c.Revision,
			Reason: "scale down", Releases: true})
	}
}

func (p *planner) initOf(ord int, name string) (InitContainer, bool) {
	i := slices.IndexFunc(p.inits[ord], func(c InitContainer) bool { return c.Init == name })
	if i < 0 {
		return InitContainer{}, false
	}
	return p.inits[ord][i], true
}

// createReason says why a replica container is created.
func (p *planner) createReason(ord int) string {
	why := "missing"
	if p.in.Backoff[ord].Restarting {
		why = "removed to be recreated (a restart)"
	}
	if len(p.in.InitContainers[p.revisionFor(ord)]) > 0 {
		return why + "; its init containers succeeded"
	}
	return why
}

// initStatuses reports the ordinals in range that have no replica container
// and have init containers at the revision they are created at.
func (p *planner) initStatuses() []InitStatus {
	var out []InitStatus
	for ord := p.start; ord < p.end; ord++ {
		if p.byOrdinal.has(ord) {
			continue
		}
		if s, ok := p.initStatus(ord); ok {
			out = append(out, s)
		}
	}
	return out
}

func (p *planner) initStatus(ord int) (InitStatus, bool) {
	rev := p.revisionFor(ord)
	names := p.in.InitContainers[rev]
	s := InitStatus{Replica: ReplicaName(p.set.Name, ord), Ordinal: ord, Revision: rev, Total: len(names), State: InitSucceeded}
	any := false
	for _, name := range names {
		c, ok := p.initOf(ord, name)
		if ok && c.Revision == rev {
			any = true
			if s.Created.IsZero() || c.Created.Before(s.Created) {
				s.Created = c.Created // the first init container's: when the replica's life began
			}
			if initDone(c) {
				s.Succeeded++
				continue
			}
		}
		s.Init, s.State = name, InitPending
		if ok && c.Revision == rev {
			s.Container, s.ID, s.State = c.Name, ShortID(c.ID), InitRunning
			if initFailed(c) {
				s.State, s.ExitCode, s.Logs = InitFailed, c.ExitCode, c.Logs
			}
		}
		break
	}
	return s, any
}

// lastOutput quotes the last line of an init container's output for a reason or
// a wait, shortened: the full lines are in status.
func lastOutput(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	const maxRunes = 160
	last := []rune(lines[len(lines)-1])
	if len(last) > maxRunes {
		last = append(last[:maxRunes], '…')
	}
	return " (last output: " + string(last) + ")"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
