package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

func TestApplyWithPullExitCodes(t *testing.T) {
	rt := enginetest.New()
	rt.Local = map[string]string{"app:1": "sha256:old"}
	rt.Registry = map[string]string{"app:1": "sha256:new", "app:2": "sha256:two"}
	var out bytes.Buffer
	a := &app{stdout: &out}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	set := func(image, policy string) config.Set {
		return config.Set{Name: "web", Source: "set.yaml:3", Template: config.Template{Image: image, ImagePullPolicy: policy}}
	}
	ctx := context.Background()
	imageID := func(res state.ApplyResult) string {
		r, _ := res.State.Revision(res.State.UpdateRevision)
		return r.Spec.ImageID
	}

	if res, err := a.applyWithPull(ctx, c, set("app:1", ""), "up"); imageID(res) != "sha256:old" || err != nil || out.Len() != 0 {
		t.Errorf("present: %q, %v, output %q; want the local ID and no output", imageID(res), err, out.String())
	}
	if res, err := a.applyWithPull(ctx, c, set("app:2", ""), "up"); imageID(res) != "sha256:two" || err != nil || !strings.Contains(out.String(), "web: pulled app:2 (1 layer, 1B downloaded)") {
		t.Errorf("missing: %q, %v, output %q; want a pull", imageID(res), err, out.String())
	}
	for _, tt := range []struct{ image, policy, want string }{
		{"app:3", config.PullNever, "set.yaml:3: template.image: app:3: not present locally, and imagePullPolicy is Never"},
		{"app:3", config.PullIfNotPresent, "set.yaml:3: template.image: app:3: manifest unknown"},
	} {
		_, err := a.applyWithPull(ctx, c, set(tt.image, tt.policy), "up")
		if exitCode(err) != exitInvalid || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s %s: exit %d, %v; want exit 2 and %q", tt.image, tt.policy, exitCode(err), err, tt.want)
		}
	}
}

// unreachableRegistry has the images it has locally; a pull finds no registry.
type unreachableRegistry struct{ *enginetest.Runtime }

func (r unreachableRegistry) EnsureImage(ctx context.Context, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	if ref == "app:1" {
		return r.Runtime.EnsureImage(ctx, ref, policy, progress)
	}
	return "", &engine.RegistryError{Image: ref, Err: errors.New(`Get "https://registry.example/v2/": dial tcp: lookup registry.example: no such host`)}
}

// A registry that cannot be reached is a failure of the moment (exit 1), not
// a mistake in the file, yet it is told at the image: line, with the image
// the set runs meanwhile.
func TestApplyWithPullRegistryUnreachable(t *testing.T) {
	rt := unreachableRegistry{enginetest.New()}
	a := &app{stdout: &bytes.Buffer{}}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	set := func(image string) config.Set {
		s := config.Set{Name: "web", Source: "set.yaml:1", Lines: map[string]int{"template.image": 4}, Template: config.Template{Image: image}}
		s.ApplyDefaults()
		return s
	}
	ctx := context.Background()
	if _, err := a.applyWithPull(ctx, c, set("app:1"), "up"); err != nil {
		t.Fatal(err)
	}
	_, err := a.applyWithPull(ctx, c, set("app:2"), "up")
	want := `set.yaml:4: template.image: pull app:2: the registry cannot be reached: Get "https://registry.example/v2/": dial tcp: lookup registry.example: no such host (nothing changed: web runs app:1, revision `
	if exitCode(err) != exitFailure || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("exit %d, %v\nwant exit 1 and %q", exitCode(err), err, want)
	}
}
