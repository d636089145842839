package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
)

func newController(t *testing.T, rt engine.Runtime, replicas int, image string) (*engine.Controller, *[]string) {
	t.Helper()
	c := &engine.Controller{Runtime: rt, Store: engine.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	var events []string
	c.Report = func(e engine.Event) { events = append(events, e.Message) }
	apply(t, c.Store, replicas, image)
	return c, &events
}

func apply(t *testing.T, store engine.Store, replicas int, image string) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.ApplyDefaults()
	if _, err := store.Update("web", func(st *engine.State, _ bool) error {
		st.Spec = s
		st.SetUpdateRevision(s.RevisionSpec("sha256:"+image), "test", time.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func converge(t *testing.T, c *engine.Controller) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
}

func TestConvergeCreatesInOrderAndRollsBack(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 3, "v1")
	converge(t, c)
	if want := []string{"create web-0", "create web-1", "create web-2"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}

	rt.Log = nil
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	want := []string{"remove web-2", "create web-2", "remove web-1", "create web-1", "remove web-0", "create web-0"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("rolling update log %v, want %v", rt.Log, want)
	}
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentRevision != st.UpdateRevision || st.ObservedGeneration != st.Generation {
		t.Errorf("after the rollout: current %s update %s, observed %d of %d", st.CurrentRevision, st.UpdateRevision, st.ObservedGeneration, st.Generation)
	}
}

func TestConvergeRetriesFailedCreate(t *testing.T) {
	rt := enginetest.New()
	rt.FailCreate = 2
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	if want := []string{"create web-0", "create web-1 failed", "create web-1"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if !slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "injected failure") }) {
		t.Errorf("the failure was not reported: %v", *events)
	}
}

func TestConvergeRecreatesExited(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Exit("web-1")
	rt.Log = nil
	converge(t, c)
	if want := []string{"remove web-1", "create web-1"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// prefixes: log entries match want one for one by prefix.
func prefixes(log, want []string) bool {
	if len(log) != len(want) {
		return false
	}
	for i := range want {
		if !strings.HasPrefix(log[i], want[i]) {
			return false
		}
	}
	return true
}

// A replica that comes back after a scale-down says it reuses a retained volume;
// one replaced by an update does not.
func TestStaleVolumeReported(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	if slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "reuses") }) {
		t.Fatalf("an update reported reuse: %v", *events)
	}
	apply(t, c.Store, 1, "v2")
	converge(t, c)
	*events = nil
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	var stale []string
	for _, e := range *events {
		if strings.Contains(e, "reuses volume") {
			stale = append(stale, e)
		}
	}
	if len(stale) != 2 || !strings.HasPrefix(stale[0], "web-1 reuses volume data-web-1 (created ") ||
		!strings.Contains(stale[0], "last used by revision web-") {
		t.Fatalf("stale volume messages %q", stale)
	}
}
