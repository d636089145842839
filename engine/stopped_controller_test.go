package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A stopped set's replicas are stopped highest first and kept: passes (as
// the daemon's) neither recreate nor start them, not even one removed by
// hand. Started again, the same containers start lowest first, and a
// replica removed meanwhile is created.
func TestStopKeepsAndStartStartsTheSameContainers(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	before := replicaIDs(t, rt)
	setStopped(t, c.Store, true)
	rt.Log = nil
	converge(t, c)
	if want := []string{"stop web-2", "stop web-1", "stop web-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("stop log %v, want %v", rt.Log, want)
	}
	rt.Destroy("web-1")
	rt.Exit("web-0") // what a pass of a set that is not stopped recreates
	rt.Log = nil
	for range 3 {
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
	}
	if len(rt.Log) != 0 {
		t.Fatalf("passes over a stopped set did %v", rt.Log)
	}
	s, _, err := c.Status(context.Background(), "web")
	if err != nil || !s.Stopped || len(s.Containers) != 2 || !s.Containers[0].Stopped {
		t.Fatalf("status of the stopped set: %+v, %v", s, err)
	}
	setStopped(t, c.Store, false)
	converge(t, c)
	if want := []string{"start web-0", "create web-1", "start web-2"}; !prefixes(rt.Log, want) {
		t.Fatalf("start log %v, want %v", rt.Log, want)
	}
	after := replicaIDs(t, rt)
	if before[0] != after[0] || before[2] != after[2] || before[1] == after[1] {
		t.Errorf("containers before the stop %v, after the start %v: not the same", before, after)
	}
}

// A replica is named among the containers the set keeps stopped before it
// is stopped: a kill between the stop and the end of the pass leaves start to
// start it again, not to recreate it as a replica that exited.
func TestStoppedReplicaIsRecordedBeforeItStops(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	ids := replicaIDs(t, rt)
	setStopped(t, c.Store, true)
	stopped := 0
	rt.OnStop = func(name string) {
		st, err := c.Store.Load("web")
		if err != nil {
			t.Fatal(err)
		}
		ord := map[string]int{"web-0": 0, "web-1": 1}[name]
		if !slices.Contains(st.StoppedIDs, ids[ord]) {
			t.Errorf("%s stopped while the saved state names %v", name, st.StoppedIDs)
		}
		stopped++
	}
	converge(t, c)
	if stopped != 2 {
		t.Fatalf("%d replicas stopped, want 2", stopped)
	}
}

// replicaIDs are the container IDs of the set's replicas, by ordinal.
func replicaIDs(t *testing.T, rt *enginetest.Runtime) map[int]string {
	t.Helper()
	obs, err := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int]string{}
	for _, r := range obs.Replicas {
		ids[r.Ordinal] = r.ID
	}
	return ids
}

func setStopped(t *testing.T, store state.Store, stopped bool) {
	t.Helper()
	if _, err := store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		if stopped {
			st.Stop()
		} else {
			st.Start()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
