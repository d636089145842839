package preview

import (
	"slices"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/volumes"
)

// Plan is what up would do to the set's objects, in the order the planner
// would do it.
type Plan struct {
	Replicas []ReplicaStep `json:"replicas,omitempty"`
	Volumes  []VolumeStep  `json:"volumes,omitempty"`
	Networks []NetworkStep `json:"networks,omitempty"`
	// Waiting is what the first pass waits for, now (a replica not ready, a
	// conflict): the rollout goes on only once it clears.
	Waiting []string `json:"waiting,omitempty"`
	// Held is what a paused rollout holds back.
	Held string `json:"held,omitempty"`
	// Stalled is what the rollout would still wait for after every step
	// above, with every replica ready (a container that is not the set's
	// holding a name): it does not complete until a person acts.
	Stalled []string `json:"stalled,omitempty"`
	// Recreate: the set's strategy removes every old replica before the first
	// new one is created.
	Recreate bool `json:"recreate,omitempty"`
}

// ReplicaStep is what happens to one ordinal.
type ReplicaStep struct {
	Name    string `json:"name"`
	Ordinal int    `json:"ordinal"`
	// Action is create, replace, remove, start or connect.
	Action string `json:"action"`
	From   string `json:"from,omitempty"` // the revision removed
	To     string `json:"to,omitempty"`   // the revision created
	Reason string `json:"reason,omitempty"`
}

// VolumeStep is a volume created or deleted.
type VolumeStep struct {
	Name   string `json:"name"`
	Action string `json:"action"` // create or delete
	Reason string `json:"reason,omitempty"`
}

// NetworkStep is a network created, or one the set leaves (removed once no
// replica is on it, if ostset made it and nothing else uses it).
type NetworkStep struct {
	Name   string `json:"name"`
	Action string `json:"action"` // create or leave
}

// Empty: nothing would be done.
func (p Plan) Empty() bool {
	return len(p.Replicas)+len(p.Volumes)+len(p.Networks) == 0
}

// simulate runs the planner on st (the state as up would store it) from the
// observation obs, pass after pass, carrying out each plan on a copy of the
// observation as if every step succeeded and every replica became ready and
// available as soon as it exists. It stops when a plan has nothing to do,
// and reports every step on the way: the whole rollout, not only its first
// pass, which under OrderedReady is one replica. What the first pass waits
// for is reported as such: the real rollout goes on only once it clears.
// name gives the name to show for a revision.
func simulate(st state.State, obs plan.Observed, now time.Time, name func(string) string) Plan {
	in := st.PlanInput(obs, now)
	in.Observed = copyObserved(obs)
	out := Plan{Recreate: st.Spec.UpdateStrategy.Type == config.Recreate}
	steps := map[int]*ReplicaStep{}
	var order []int
	step := func(ord int, rname string) *ReplicaStep {
		if s, ok := steps[ord]; ok {
			return s
		}
		steps[ord] = &ReplicaStep{Name: rname, Ordinal: ord}
		order = append(order, ord)
		return steps[ord]
	}
	limit := 10*(max(st.Spec.DesiredReplicas(), len(obs.Replicas))+len(obs.Inits)+1) + 50
	for pass := 0; pass < limit; pass++ {
		in.CondemnedVolumes = plan.SettleCondemned(in.Set, in.CondemnedVolumes, in.Observed)
		pl := plan.MakePlan(in)
		if pass == 0 {
			out.Waiting, out.Held = pl.Waiting, pl.Held
		}
		if len(pl.Actions) == 0 && pass == 0 && !pl.Complete {
			// It waits now (a replica not ready): what follows once it is.
			ready(&in.Observed, now)
			in.Backoff, in.Refused = nil, nil
			continue
		}
		if len(pl.Actions) == 0 {
			if !pl.Complete {
				out.Stalled = pl.Waiting
			}
			break
		}
		in.CondemnedVolumes = pl.CondemnedVolumes
		for _, a := range pl.Actions {
			apply(&in, st, a, now, step, &out)
			if a.Kind == plan.ActDelete && a.Recreate != "" {
				apply(&in, st, plan.Action{Kind: plan.ActCreate, Ordinal: a.Ordinal, Name: a.Name, Revision: a.Recreate}, now, step, &out)
			}
		}
		ready(&in.Observed, now)
		in.Backoff, in.Refused = nil, nil // every step succeeds: nothing is held back
	}
	for _, ord := range order {
		s := *steps[ord]
		s.From, s.To = name(s.From), name(s.To)
		if s.Action != "" {
			out.Replicas = append(out.Replicas, s)
		}
	}
	return out
}

// apply carries out one action on in's observation and notes it in its
// ordinal's step (or out's volumes).
func apply(in *plan.Input, st state.State, a plan.Action, now time.Time, step func(int, string) *ReplicaStep, out *Plan) {
	obs := &in.Observed
	switch a.Kind {
	case plan.ActCreate:
		obs.Replicas = append(obs.Replicas, plan.Replica{ID: "preview-" + a.Name, Name: a.Name, Ordinal: a.Ordinal, Revision: a.Revision,
			State: plan.StateRunning, Health: plan.HealthHealthy, Created: now})
		s := step(a.Ordinal, a.Name)
		s.To = a.Revision
		switch s.Action {
		case "remove":
			s.Action = "replace"
		case "":
			s.Action, s.Reason = "create", a.Reason
		}
		rev, _ := st.Revision(a.Revision)
		for _, c := range rev.Spec.VolumeClaimTemplates {
			v := volumes.Name(c.Name, st.Spec.Name, a.Ordinal)
			if !slices.ContainsFunc(obs.Volumes, func(o plan.Volume) bool { return o.Name == v }) {
				obs.Volumes = append(obs.Volumes, plan.Volume{Name: v, Claim: c.Name, Ordinal: a.Ordinal, Created: now})
				out.Volumes = append(out.Volumes, VolumeStep{Name: v, Action: "create"})
			}
		}
	case plan.ActDelete:
		obs.Replicas = slices.DeleteFunc(obs.Replicas, func(r plan.Replica) bool { return r.Name == a.Name })
		s := step(a.Ordinal, a.Name)
		if s.Action == "" {
			s.Action, s.From, s.Reason = "remove", a.Revision, a.Reason
		}
	case plan.ActStart:
		for i := range obs.Replicas {
			if obs.Replicas[i].Name == a.Name {
				obs.Replicas[i].State = plan.StateRunning
			}
		}
		if s := step(a.Ordinal, a.Name); s.Action == "" {
			s.Action, s.To, s.Reason = "start", a.Revision, a.Reason
		}
	case plan.ActConnect:
		for i := range obs.Replicas {
			if obs.Replicas[i].Name == a.Name {
				obs.Replicas[i].Networks = nil
			}
		}
		if s := step(a.Ordinal, a.Name); s.Action == "" {
			s.Action, s.To, s.Reason = "connect", a.Revision, a.Reason
		}
	case plan.ActDeleteVolume:
		obs.Volumes = slices.DeleteFunc(obs.Volumes, func(v plan.Volume) bool { return v.Name == a.Name })
		out.Volumes = append(out.Volumes, VolumeStep{Name: a.Name, Action: "delete", Reason: a.Reason})
	case plan.ActCreateInit:
		obs.Inits = append(obs.Inits, plan.InitContainer{ID: "preview-" + a.Name, Name: a.Name, Ordinal: a.Ordinal, Init: a.Init,
			Revision: a.Revision, State: plan.StateExited, Created: now})
	case plan.ActDeleteInit:
		obs.Inits = slices.DeleteFunc(obs.Inits, func(c plan.InitContainer) bool { return c.Name == a.Name })
	}
}

// ready makes every replica of obs running, ready and available: a replica
// becomes ready as soon as it exists, as the preview assumes.
func ready(obs *plan.Observed, now time.Time) {
	// A removal in flight finishes; an init container that runs succeeds.
	obs.Replicas = slices.DeleteFunc(obs.Replicas, func(r plan.Replica) bool { return r.State == plan.StateRemoving })
	for i := range obs.Inits {
		if c := &obs.Inits[i]; c.State == plan.StateRunning || c.State == plan.StateCreated {
			c.State, c.ExitCode = plan.StateExited, 0
		}
	}
	for i := range obs.Replicas {
		r := &obs.Replicas[i]
		r.State, r.Health, r.ReadySince = plan.StateRunning, plan.HealthHealthy, now.Add(-365*24*time.Hour)
		r.NotReady = nil
	}
}

func copyObserved(obs plan.Observed) plan.Observed {
	out := obs
	out.Replicas = slices.Clone(obs.Replicas)
	out.Inits = slices.Clone(obs.Inits)
	out.Volumes = slices.Clone(obs.Volumes)
	return out
}
