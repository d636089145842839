package state

import (
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// A stopped set keeps, pass by pass, the containers it holds stopped; once
// started, each is forgotten as it runs again or goes; up starts a stopped
// set, as docker compose up does; the changing commands refuse it.
func TestStoppedSet(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(2), Template: config.Template{Image: "img"}}
	s.ApplyDefaults()
	var st State
	if _, err := st.Apply(s, ImageIDs{Main: "sha256:a"}, "up", t0, false); err != nil {
		t.Fatal(err)
	}
	running := []plan.Replica{{ID: "a", Ordinal: 0, State: plan.StateRunning}, {ID: "b", Ordinal: 1, State: plan.StateRunning}}
	if !st.Stop() || st.Stop() || st.RefuseStopped() == nil {
		t.Fatalf("stop: %+v", st)
	}
	st.Saw(plan.Observed{Replicas: running})
	if in := st.PlanInput(plan.Observed{}, t0); !in.Stopped || !slices.Equal(in.StoppedIDs, []string{"a", "b"}) {
		t.Fatalf("plan input of a stopped set: %v %v", in.Stopped, in.StoppedIDs)
	}
	if !st.Start() || st.Start() || st.RefuseStopped() != nil {
		t.Fatalf("start: %+v", st)
	}
	st.Saw(plan.Observed{Replicas: []plan.Replica{{ID: "a", State: plan.StateRunning}, {ID: "b", State: plan.StateExited}}})
	if !slices.Equal(st.StoppedIDs, []string{"b"}) {
		t.Errorf("kept stopped after a start: %v, want b alone", st.StoppedIDs)
	}
	st.Stop()
	res, err := st.Apply(s, ImageIDs{Main: "sha256:a"}, "up", t0, true)
	if err != nil || st.Stopped || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "was stopped") }) {
		t.Errorf("up of a stopped set: stopped %v, notes %q, %v", st.Stopped, res.Notes, err)
	}
}
