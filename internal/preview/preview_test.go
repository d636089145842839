package preview

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

func webSet(replicas int, image string, mods ...func(*config.Set)) config.Set {
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: image},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.ApplyDefaults()
	for _, m := range mods {
		m(&s)
	}
	return s
}

// running is a controller over an in-memory engine with the set s applied
// and converged, as ostset up leaves it.
func running(t *testing.T, s config.Set) (*engine.Controller, *enginetest.Runtime) {
	t.Helper()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Apply(ctx, s, "test", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Converge(ctx, s.Name); err != nil {
		t.Fatal(err)
	}
	rt.Log = nil
	return c, rt
}

func preview(t *testing.T, c *engine.Controller, s config.Set) (Set, string) {
	t.Helper()
	p, err := Engine{Controller: c}.Preview(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Render(&b, p)
	return p, b.String()
}

// revs replaces the revision names of text by their images, for golden text.
func revs(t *testing.T, c *engine.Controller, text string) string {
	t.Helper()
	st, err := c.Store.Load("web")
	if err != nil {
		return text
	}
	for _, r := range st.Revisions {
		text = strings.ReplaceAll(text, r.Name, "<"+r.Spec.Template.Image+">")
	}
	return text
}

func TestPreviewUnchangedSetIsNoChange(t *testing.T) {
	c, rt := running(t, webSet(3, "v1"))
	p, out := preview(t, c, webSet(3, "v1"))
	if p.Changed() {
		t.Errorf("an unchanged set previews as changed:\n%s", out)
	}
	if want := "web: no change, revision <v1>\n"; revs(t, c, out) != want {
		t.Errorf("render:\n%s\nwant:\n%s", revs(t, c, out), want)
	}
	if len(rt.Log) > 0 {
		t.Errorf("the preview acted on the engine: %v", rt.Log)
	}
}

// A new image: every replica is replaced, highest ordinal first, and the
// template change is worded as rollout history words it. Nothing is stored.
func TestPreviewRollingUpdate(t *testing.T) {
	c, rt := running(t, webSet(3, "ostset/web:1"))
	before, _ := os.ReadFile(filepath.Join(c.Store.Dir, "sets", "web.json"))
	p, out := preview(t, c, webSet(3, "ostset/web:2"))
	want := `web: revision <ostset/web:1> -> <ostset/web:2>
  template: image ostset/web:1 -> :2
  plan (in order, each replica taken as ready once created):
  ~ replace web-2: <ostset/web:1> -> <ostset/web:2>
  ~ replace web-1: <ostset/web:1> -> <ostset/web:2>
  ~ replace web-0: <ostset/web:1> -> <ostset/web:2>
`
	// The new revision is not stored: name it by hand.
	out = strings.ReplaceAll(revs(t, c, out), p.Revision, "<ostset/web:2>")
	if !p.Changed() || out != want {
		t.Errorf("render:\n%s\nwant:\n%s", out, want)
	}
	after, _ := os.ReadFile(filepath.Join(c.Store.Dir, "sets", "web.json"))
	if !bytes.Equal(before, after) || len(rt.Log) > 0 {
		t.Errorf("the preview changed the state or the engine: %v", rt.Log)
	}
}

// A scale-down under whenScaled: Delete removes the highest replica and
// then its volume; a scale-up creates the replica and its volume.
func TestPreviewScale(t *testing.T) {
	deleteScaled := func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete }
	c, _ := running(t, webSet(3, "v1", deleteScaled))
	_, out := preview(t, c, webSet(2, "v1", deleteScaled))
	want := `web: revision <v1> unchanged
  spec: replicas 3 -> 2
  plan (in order, each replica taken as ready once created):
  - remove  web-2 at <v1> (scale down)
  - delete volume data-web-2 (whenScaled: Delete)
`
	if revs(t, c, out) != want {
		t.Errorf("render:\n%s\nwant:\n%s", revs(t, c, out), want)
	}
	_, out = preview(t, c, webSet(4, "v1", deleteScaled))
	want = `web: revision <v1> unchanged
  spec: replicas 3 -> 4
  plan (in order, each replica taken as ready once created):
  + create  web-3 at <v1>
  + create volume data-web-3
`
	if revs(t, c, out) != want {
		t.Errorf("render:\n%s\nwant:\n%s", revs(t, c, out), want)
	}
}

// A new set shows everything created, and writes nothing: not even the
// state directory's ID.
func TestPreviewNewSet(t *testing.T) {
	rt := enginetest.New()
	dir := filepath.Join(t.TempDir(), "state")
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: dir}}
	e := Engine{Controller: c, NetworkExists: func(context.Context, string) (bool, error) { return false, nil }}
	p, err := e.Preview(context.Background(), webSet(2, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Render(&b, p)
	out := b.String()
	want := "web: new set, revision " + p.Revision + `
  plan (in order, each replica taken as ready once created):
  + create  web-0 at ` + p.Revision + `
  + create  web-1 at ` + p.Revision + `
  + create volume data-web-0
  + create volume data-web-1
  + create network ostset
`
	if !p.New || out != want {
		t.Errorf("render:\n%s\nwant:\n%s", out, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the preview made the state directory: %v", err)
	}
}

// Recreate: every old replica goes, then the new ones come, in order.
func TestPreviewRecreate(t *testing.T) {
	recreate := func(s *config.Set) { s.UpdateStrategy.Type = config.Recreate }
	c, _ := running(t, webSet(2, "ostset/web:1", recreate))
	p, _ := preview(t, c, webSet(2, "ostset/web:2", recreate))
	if !p.Plan.Recreate || len(p.Plan.Replicas) != 2 {
		t.Fatalf("plan %+v", p.Plan)
	}
	for i, r := range p.Plan.Replicas {
		if r.Action != "replace" || r.Ordinal != i || r.To != p.Revision {
			t.Errorf("step %d: %+v", i, r)
		}
	}
}

// An image that is not present locally is compared by reference with the
// stored revision's; a new reference makes a revision whose name is unknown.
func TestPreviewImageNotPresent(t *testing.T) {
	c, rt := running(t, webSet(1, "ostset/web:1"))
	rt.Local = map[string]string{} // nothing is present now
	p, out := preview(t, c, webSet(1, "ostset/web:1"))
	if p.Changed() || !strings.Contains(out, "image ostset/web:1 is not present locally (up would pull it): compared by reference") {
		t.Errorf("same reference:\n%s", out)
	}
	p, out = preview(t, c, webSet(1, "ostset/web:2"))
	if !p.Changed() || p.Revision != "" || !strings.Contains(out, "-> a new revision") ||
		!strings.Contains(out, "~ replace web-0: "+p.Stored+" -> (new revision)") {
		t.Errorf("new reference:\n%s", out)
	}
	never := webSet(1, "ostset/web:2")
	never.Template.ImagePullPolicy = config.PullNever
	if _, err := (Engine{Controller: c}).Preview(context.Background(), never); err == nil {
		t.Error("a missing image under Never previews without the error up gives")
	}
	if len(rt.Log) > 0 {
		t.Errorf("the preview pulled: %v", rt.Log)
	}
}

// A replica that is not ready now holds the rollout back: the preview says
// so, and still lists the whole rollout, as it goes once the replica is ready.
func TestPreviewWaitsFirst(t *testing.T) {
	c, rt := running(t, webSet(3, "ostset/web:1"))
	rt.SetHealth("web-1", "unhealthy")
	p, out := preview(t, c, webSet(3, "ostset/web:2"))
	if len(p.Plan.Replicas) != 3 || !strings.Contains(out, "  first waits for: web-1 not ready (health: unhealthy)") {
		t.Errorf("render:\n%s", out)
	}
}
