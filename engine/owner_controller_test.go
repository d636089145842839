package engine_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
)

// objects lists what the runtime holds for the set: name -> ID (volumes: owner ID).
func objects(t *testing.T, rt *enginetest.Runtime) map[string]string {
	t.Helper()
	obs, err := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range obs.Replicas {
		m[r.Name] = r.ID + "@" + r.Owner.ID
	}
	for _, v := range obs.Volumes {
		m[v.Name] = "@" + v.Owner.ID
	}
	return m
}

// Two state directories on one engine: the second one never touches the first
// one's set, not even with down --volumes, until it adopts it on purpose.
func TestTwoStateDirectories(t *testing.T) {
	ctx := context.Background()
	rt := enginetest.New()
	first, _ := newController(t, rt, 2, "v1")
	converge(t, first)
	firstID, err := first.Store.ID()
	if err != nil {
		t.Fatal(err)
	}
	before := objects(t, rt)
	for _, name := range []string{"web-0", "web-1", "data-web-0", "data-web-1"} {
		if !strings.HasSuffix(before[name], "@"+firstID) {
			t.Fatalf("%s not labelled with the first state directory's ID %s: %v", name, firstID, before)
		}
	}
	rt.Log = nil

	second, events := newController(t, rt, 2, "v1")
	var oe *plan.OwnershipError
	if _, err := second.Claim(ctx, "web", false); !errors.As(err, &oe) ||
		!strings.Contains(err.Error(), "set web: container web-0, container web-1, volume data-web-0, and volume data-web-1 belong to state directory "+first.Store.Dir) ||
		!strings.Contains(err.Error(), "ostset up --adopt") {
		t.Fatalf("claim from the second state directory: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := second.Converge(short, "web"); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "set web: container web-0") {
		t.Fatalf("converge from the second state directory: %v, want an ownership error at once", err)
	}
	if _, err := second.Pass(ctx, "web"); err != nil {
		t.Fatal(err) // a single pass (as the daemon runs them) waits
	}
	s, _, err := second.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"web-0", "web-1", "data-web-0", "data-web-1"}; !slices.Equal(s.Conflicts, want) || len(s.Containers) != 0 {
		t.Errorf("status from the second state directory: conflicts %v (want %v), containers %v", s.Conflicts, want, s.Containers)
	}
	if err := second.Delete(ctx, "web", true); err != nil {
		t.Fatal(err)
	}
	if len(rt.Log) != 0 || !maps.Equal(objects(t, rt), before) {
		t.Fatalf("the second state directory acted on the first one's set: log %v, objects %v, was %v", rt.Log, objects(t, rt), before)
	}
	if !slices.ContainsFunc(*events, func(e string) bool {
		return e == "volume data-web-1 left alone: it belongs to state directory "+first.Store.Dir+" (id "+firstID+")"
	}) {
		t.Errorf("down did not say what it left alone: %v", *events)
	}
	if p, err := first.Pass(ctx, "web"); err != nil || !p.Complete {
		t.Fatalf("the first state directory's set after all that: %v\n%s", err, p)
	}

	// Adopting on purpose: the second state directory takes the set over as it is.
	apply(t, second.Store, 2, "v1")
	owners, err := second.Claim(ctx, "web", true)
	if err != nil || len(owners) != 1 || owners[0].ID != firstID {
		t.Fatalf("claim with adopt: %v, %v", owners, err)
	}
	if err := second.Adopt(context.Background(), "web", owners); err != nil {
		t.Fatal(err)
	}
	converge(t, second)
	if len(rt.Log) != 0 {
		t.Fatalf("adoption replaced replicas: %v", rt.Log)
	}
	st, _ := second.Store.Load("web")
	if len(st.AdoptedOwners) != 1 || st.AdoptedOwners[0].ID != firstID {
		t.Errorf("adopted owners %v", st.AdoptedOwners)
	}
	secondID, _ := second.Store.ID()
	apply(t, second.Store, 3, "v1")
	converge(t, second)
	if got := objects(t, rt); !strings.HasSuffix(got["web-2"], "@"+secondID) || got["data-web-2"] != "@"+secondID {
		t.Errorf("new objects not labelled with the second state directory's ID %s: %v", secondID, got)
	}
	if err := second.Delete(ctx, "web", true); err != nil {
		t.Fatal(err)
	}
	if left := objects(t, rt); len(left) != 0 {
		t.Errorf("down --volumes after adoption left %v", left)
	}
}

// The runtime refuses on its own to change another state directory's objects,
// whatever the engine asks.
func TestRuntimeRefusesAnotherOwner(t *testing.T) {
	rt := enginetest.New()
	theirs := plan.Owner{ID: "theirs", Dir: "/elsewhere"}
	rt.Add(plan.Replica{ID: "c1", Name: "web-0", Ordinal: 0, State: plan.StateRunning, Owner: theirs})
	rt.AddVolume(plan.Volume{Name: "data-web-0", Ordinal: 0, Owner: theirs})
	ctx := engine.WithOwnership(context.Background(), plan.Ownership{Self: plan.Owner{ID: "mine"}})
	for what, err := range map[string]error{
		"remove": rt.RemoveReplica(ctx, "web", "c1", 0),
		"start":  rt.StartReplica(ctx, "web", "c1"),
		"volume": rt.RemoveVolume(ctx, "web", "data-web-0"),
	} {
		if err == nil || !strings.Contains(err.Error(), "it belongs to state directory /elsewhere (id theirs), not to this one") {
			t.Errorf("%s: %v", what, err)
		}
	}
	adopted := engine.WithOwnership(context.Background(), plan.Ownership{Self: plan.Owner{ID: "mine"}, Adopted: []plan.Owner{theirs}})
	if err := rt.RemoveVolume(adopted, "web", "data-web-0"); err != nil {
		t.Errorf("adopted: %v", err)
	}
}
