package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// up applies the set that apply stores, as ostset up does.
func up(t *testing.T, c *engine.Controller, replicas int, image string) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.ApplyDefaults()
	if _, err := c.ApplyImages(context.Background(), s, state.ImageIDs{Main: "sha256:" + image}, "test"); err != nil {
		t.Fatal(err)
	}
}

func reuses(events []string) []string {
	var out []string
	for _, e := range events {
		if strings.Contains(e, "reuses volume") {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}

// ostset down keeps what its kept volumes were last used by, so that the set
// brought back by ostset up says it of each volume, as after a scale-down and
// up; the memory goes into the new state and is not kept twice.
func TestDownAndUpReportLastUse(t *testing.T) {
	rt := enginetest.New()
	rt.FailRemove = "web-0" // the first down is cut short
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Delete(ctx, "web", false); err == nil {
		t.Fatal("the injected failure did not stop the delete")
	}
	if err := c.Delete(ctx, "web", false); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(c.Store.Dir, "volume-use", "web.json")
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept volume use: %v %v", fi, err)
	}

	*events = nil
	up(t, c, 2, "v1")
	converge(t, c)
	got := reuses(*events)
	if len(got) != 2 {
		t.Fatalf("reuse messages %q", got)
	}
	for i, name := range []string{"web-0", "web-1"} {
		want := name + " reuses volume data-" + name + " (created "
		if !strings.HasPrefix(got[i], want) || !strings.Contains(got[i], ", last used by revision "+st.UpdateRevision+" until ") {
			t.Errorf("got %q, want %q... last used by revision %s", got[i], want, st.UpdateRevision)
		}
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("the kept use outlived the set's return: %v", err)
	}
}

// Volumes removed by the delete, or afterwards, leave nothing behind.
func TestDownVolumesKeepsNoUse(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	ctx := context.Background()
	kept := filepath.Join(c.Store.Dir, "volume-use", "web.json")
	if err := c.Delete(ctx, "web", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("down --volumes kept the use of removed volumes: %v", err)
	}

	up(t, c, 2, "v1")
	converge(t, c)
	if err := c.Delete(ctx, "web", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RemoveKeptVolumes(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("removing the kept volumes left their use: %v", err)
	}
}

// A replica that takes over its ordinal's volume after its predecessor went
// without releasing it (removed by hand, or its removal by an update cut short
// before the state was saved) does not report the volume as from an earlier
// life; after a scale-down whose removal was cut short and finished later, it
// does.
func TestReuseIsNewsOnlyAfterARelease(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 3, "v1")
	converge(t, c)
	rt.Destroy("web-1") // docker rm -f
	converge(t, c)

	// An update's pass recorded the removal of web-2, removed it, and was
	// killed before it saved what else it did.
	id := rt.Destroy("web-2")
	if _, err := c.Store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		st.Removing = map[string]time.Time{id: time.Now()}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	if got := reuses(*events); len(got) != 0 {
		t.Fatalf("reuse reported after a removal by hand and a cut-short update: %q", got)
	}

	// A scale-down's removal of web-2 cut short: the next pass finishes it.
	obs, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	for _, r := range obs.Replicas {
		if r.Name == "web-2" {
			id = r.ID
		}
	}
	if _, err := c.Store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		st.Removing = map[string]time.Time{id: time.Now()}
		st.Spec.Replicas = ptr(2)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	converge(t, c)
	apply(t, c.Store, 3, "v2")
	converge(t, c)
	if got := reuses(*events); len(got) != 1 || !strings.HasPrefix(got[0], "web-2 reuses volume data-web-2") {
		t.Errorf("after a scale-down finished by a later pass and a scale-up: reuse messages %q, want web-2's", got)
	}
}
