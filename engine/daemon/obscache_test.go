package daemon

import (
	"testing"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

func replica(id string, ready bool) plan.Replica {
	h := plan.HealthHealthy
	if !ready {
		h = plan.HealthUnhealthy
	}
	return plan.Replica{ID: id, Name: "web-" + id, State: plan.StateRunning, Health: h}
}

// The rules by which the daemon keeps an observation (see observations).
func TestObservationsKeepOnlyWhatEventsVouchFor(t *testing.T) {
	opts := engine.ObserveOptions{Logs: true}
	idle := plan.Observed{Replicas: []plan.Replica{replica("0", true), replica("1", true)}}
	// pass takes obs; during the observation the events arrive; the pass ends
	// (idle or not).
	newObservations := func() *observations {
		o := newObservations()
		o.streaming(true)
		return o
	}
	pass := func(o *observations, obs plan.Observed, during []engine.SetEvent, idle bool) {
		gen, _ := o.begin("web")
		for _, e := range during {
			o.event(e)
		}
		o.took("web", gen, opts, obs)
		o.settle("web", idle, true)
	}
	ids := func(obs plan.Observed) (out []string) {
		for _, r := range obs.Replicas {
			out = append(out, r.ID)
		}
		return out
	}
	destroy := func(id string) engine.SetEvent { return engine.SetEvent{Set: "web", ID: id, Action: "destroy"} }

	t.Run("an idle pass's observation is kept, and destroys take containers out", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, nil, true)
		o.event(destroy("1"))
		got, ok := o.get("web", opts)
		if !ok || len(got.Replicas) != 1 || got.Replicas[0].ID != "0" {
			t.Fatalf("got %v, %v; want replica 0 alone", ids(got), ok)
		}
		got.Replicas[0].ID = "changed"
		if again, _ := o.get("web", opts); again.Replicas[0].ID != "0" {
			t.Error("get handed out the kept observation itself, not a copy")
		}
		if _, ok := o.get("web", engine.ObserveOptions{Timings: true}); ok {
			t.Error("an observation taken with other options was served")
		}
	})
	t.Run("any other event drops it", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, nil, true)
		o.event(engine.SetEvent{Set: "web", ID: "0", Action: "die"})
		if _, ok := o.get("web", opts); ok {
			t.Error("kept after a die")
		}
		pass(o, idle, nil, true)
		o.event(engine.SetEvent{Set: "web", Action: "destroy"})
		if _, ok := o.get("web", opts); ok {
			t.Error("kept after a destroy that did not say which container")
		}
	})
	t.Run("an event during the observation keeps it from being kept", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, []engine.SetEvent{{Set: "web", ID: "0", Action: "health_status: unhealthy"}}, true)
		if _, ok := o.get("web", opts); ok {
			t.Error("kept although an event arrived while it was taken")
		}
	})
	t.Run("a destroy during the observation is applied to it", func(t *testing.T) {
		o := newObservations()
		dying := plan.Observed{Replicas: []plan.Replica{replica("0", true), {ID: "1", State: plan.StateRemoving}}}
		pass(o, dying, []engine.SetEvent{destroy("1")}, true)
		got, ok := o.get("web", opts)
		if !ok || len(ids(got)) != 1 {
			t.Errorf("got %v, %v; want replica 0 alone", ids(got), ok)
		}
	})
	t.Run("an init or a foreign container keeps it from being kept", func(t *testing.T) {
		o := newObservations()
		pass(o, plan.Observed{Replicas: []plan.Replica{replica("0", false)}}, nil, true)
		if _, ok := o.get("web", opts); !ok {
			t.Error("not kept with a replica not ready: its health changes only with an event")
		}
		pass(o, plan.Observed{Replicas: []plan.Replica{replica("0", true)}, Inits: []plan.InitContainer{{ID: "i"}}}, nil, true)
		if _, ok := o.get("web", opts); ok {
			t.Error("kept with an init container")
		}
		pass(o, plan.Observed{Replicas: []plan.Replica{replica("0", true)}, Foreign: []plan.Foreign{{ID: "f", Name: "web-1"}}}, nil, true)
		if _, ok := o.get("web", opts); ok {
			t.Error("kept with a foreign container")
		}
	})
	t.Run("a pass that acts or fails drops it, and so does one that answers no event", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, nil, true)
		if _, ok := o.get("web", opts); !ok {
			t.Fatal("not kept")
		}
		o.settle("web", false, true) // a pass given the kept observation acted
		if _, ok := o.get("web", opts); ok {
			t.Error("kept after a pass that acted")
		}
		pass(o, idle, nil, true)
		o.drop("web") // Daemon.process, for a pass with no event to answer
		if _, ok := o.get("web", opts); ok {
			t.Error("kept for a pass that answers no event")
		}
	})
	t.Run("nothing is kept while the event stream is down", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, nil, true)
		o.streaming(false)
		if _, ok := o.get("web", opts); ok {
			t.Error("kept after the stream ended")
		}
		pass(o, idle, nil, true)
		if _, ok := o.get("web", opts); ok {
			t.Error("kept while the stream is down")
		}
		gen, _ := o.begin("web") // taken while down, settled once it is back
		o.streaming(true)
		o.took("web", gen, opts, idle)
		o.settle("web", true, true)
		if _, ok := o.get("web", opts); ok {
			t.Error("an observation begun while the stream was down was kept")
		}
	})
	t.Run("a die goes with the next observation, never with the copy, until one answers it", func(t *testing.T) {
		o := newObservations()
		pass(o, idle, nil, true)
		o.event(engine.SetEvent{Set: "web", ID: "1", Action: "die"})
		if _, ok := o.get("web", opts); ok {
			t.Error("a die was answered from the copy")
		}
		gen, died := o.begin("web")
		if len(died) != 1 || died[0] != "1" {
			t.Fatalf("died = %v, want [1]", died)
		}
		o.event(engine.SetEvent{Set: "web", ID: "0", Action: "die"}) // while the engine answers
		o.took("web", gen, opts, idle)
		if !o.diedUnanswered("web") {
			t.Error("a die that came during the observation is not said to be unanswered")
		}
		o.settle("web", false, true)
		if _, died := o.begin("web"); len(died) != 1 || died[0] != "0" {
			t.Errorf("after the observation died = %v, want [0]: the die during it is not answered yet", died)
		}
		o.event(destroy("0"))
		if _, died := o.begin("web"); len(died) != 0 {
			t.Errorf("after its destroy died = %v, want none", died)
		}
	})
	t.Run("a pass that plans again answers no die", func(t *testing.T) {
		o := newObservations()
		o.event(engine.SetEvent{Set: "web", ID: "1", Action: "die"})
		gen, _ := o.begin("web")
		o.took("web", gen, opts, idle)
		if o.diedUnanswered("web") {
			t.Error("the die the observation inspected is said to be unanswered")
		}
		o.settle("web", false, false)
		if _, died := o.begin("web"); len(died) != 1 || died[0] != "1" {
			t.Errorf("after a pass that planned again died = %v, want [1]: its next observation inspects it again", died)
		}
	})
}
