package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
)

// A replica left created by a start the engine lost (the engine killed during
// the start: "task … already exists" at every start after) is removed and
// created again, and the set converges; it never ran, so nothing is lost.
func TestLostStartIsRemovedAndCreatedAgain(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	lost := rt.LoseStart("web-1")
	rt.Log = nil
	converge(t, c)
	if want := []string{"start web-1 refused: task already exists", "remove web-1", "create web-1"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	obs, err := rt.Observe(t.Context(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range obs.Replicas {
		if r.Name == "web-1" && (r.ID == lost || r.State != plan.StateRunning) {
			t.Errorf("web-1: %+v, want a new running container", r)
		}
	}
	if !slices.ContainsFunc(*events, func(e string) bool {
		return strings.HasPrefix(e, "web-1 removed (it never ran, and the engine cannot start it:") && strings.Contains(e, "already exists")
	}) {
		t.Errorf("events %q: no removal that says why", *events)
	}
}
