package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// applyNetwork stores web with the given network, partition and strategy.
func applyNetwork(t *testing.T, store state.Store, replicas int, network string, mod func(*config.Set)) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: "v1"}, Network: network}
	s.ApplyDefaults()
	if mod != nil {
		mod(&s)
	}
	storeSpec(t, store, s)
}

func leftNetworks(t *testing.T, c *engine.Controller) []string {
	t.Helper()
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	return st.LeftNetworks
}

// A change of network rolls as any other change of the revision, from the
// highest ordinal down, and the old network is removed (if ostset made it and
// nothing uses it) once no replica is on it.
func TestNetworkChangeRollsAndReleasesTheOldNetwork(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.Log = nil
	applyNetwork(t, c.Store, 3, "moved", nil)
	converge(t, c)
	want := []string{"remove web-2", "create web-2", "remove web-1", "create web-1", "remove web-0", "create web-0"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if len(rt.Created) != 6 || rt.Created[3].Network != "moved" || rt.Created[5].Network != "moved" {
		t.Fatalf("replicas were not created on the new network: %+v", rt.Created)
	}
	if _, err := c.Pass(context.Background(), "web"); err != nil { // the pass that finds nothing to do
		t.Fatal(err)
	}
	if !slices.Equal(rt.NetworksRemoved, []string{"ostset"}) || leftNetworks(t, c) != nil {
		t.Fatalf("networks removed %v, still recorded %v; want ostset removed once", rt.NetworksRemoved, leftNetworks(t, c))
	}
}

// Below the partition a replica stays at the current revision on its network:
// it is not removed as detached from the new one (which recreated it there,
// and removed it again, for ever), and the old network stays while it is used.
// Lowering the partition rolls the rest, highest first.
func TestNetworkChangeKeepsThePartition(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Log = nil
	applyNetwork(t, c.Store, 2, "moved", func(s *config.Set) { s.UpdateStrategy.RollingUpdate.Partition = 2 })
	converge(t, c)
	for range 3 {
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
	}
	if len(rt.Log) != 0 || len(rt.NetworksRemoved) != 0 {
		t.Fatalf("under partition 2 the set changed: log %v, networks removed %v", rt.Log, rt.NetworksRemoved)
	}
	if got := leftNetworks(t, c); !slices.Equal(got, []string{"ostset"}) {
		t.Fatalf("left networks %v, want [ostset]", got)
	}
	applyNetwork(t, c.Store, 2, "moved", nil)
	converge(t, c)
	if want := []string{"remove web-1", "create web-1", "remove web-0", "create web-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// Under OnDelete a change of network replaces nothing on its own.
func TestNetworkChangeOnDeleteReplacesNothing(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.Log = nil
	applyNetwork(t, c.Store, 3, "moved", func(s *config.Set) { s.UpdateStrategy.Type = config.OnDelete })
	converge(t, c)
	if len(rt.Log) != 0 || len(rt.NetworksRemoved) != 0 {
		t.Fatalf("OnDelete: log %v, networks removed %v", rt.Log, rt.NetworksRemoved)
	}
}

// Leaving one of several networks rolls the set, and the network left is
// released once no replica is on it; the networks kept stay.
func TestNetworkLeftOfSeveralIsReleased(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	applyNetwork(t, c.Store, 2, "", func(s *config.Set) {
		s.Network, s.Networks = "front", []config.NetworkAttachment{{Name: "front"}, {Name: "back"}}
	})
	converge(t, c)
	if n := len(rt.Created); n != 2 || len(rt.Created[1].OtherNetworks) != 1 || rt.Created[1].OtherNetworks[0].Name != "back" {
		t.Fatalf("created %+v, want 2 replicas joining back", rt.Created)
	}
	rt.Log = nil
	applyNetwork(t, c.Store, 2, "front", nil)
	converge(t, c)
	if want := []string{"remove web-1", "create web-1", "remove web-0", "create web-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rt.NetworksRemoved, []string{"ostset", "back"}) || leftNetworks(t, c) != nil {
		t.Fatalf("networks removed %v, still recorded %v; want ostset (left by the first apply) and back removed once", rt.NetworksRemoved, leftNetworks(t, c))
	}
}

// twoNetworks is web on the set's network and on back.
func twoNetworks(s *config.Set) { s.Networks = []config.NetworkAttachment{{Name: "back"}} }

// A replica disconnected from another network of its revision (not the
// first) is connected to it again, not recreated.
func TestReplicaOffASecondNetworkIsConnectedAgain(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	applyNetwork(t, c.Store, 2, "ostset", twoNetworks)
	converge(t, c)
	rt.Log = nil
	rt.Disconnect("web-1", "back")
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rt.Log, []string{"connect web-1 back"}) {
		t.Fatalf("log %v, want web-1 connected to back and nothing else", rt.Log)
	}
}

// A replica created but not started, on its first network alone (the process
// that made it stopped before it joined the others), joins them before it
// starts.
func TestStartJoinsTheNetworksTheCreateDidNotJoin(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 1, "v1")
	applyNetwork(t, c.Store, 1, "ostset", twoNetworks)
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	rt.Add(plan.Replica{ID: "half", Name: "web-0", Ordinal: 0, Revision: st.UpdateRevision, State: plan.StateCreated, Networks: []string{"ostset"}})
	converge(t, c)
	if !slices.Equal(rt.Log, []string{"connect web-0 back", "start web-0"}) {
		t.Fatalf("log %v, want web-0 connected to back, then started", rt.Log)
	}
}
