package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A replica's templates see the replica count when it is created. Scaling does
// not recreate the replicas that stay, so they keep what they were created
// with, as a Kubernetes pod keeps its environment.
func TestScaleKeepsExpandedValuesOfExistingReplicas(t *testing.T) {
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	scaleTo := func(n int) {
		t.Helper()
		s := config.Set{Name: "web", Replicas: &n, Template: config.Template{Image: "v1",
			Env: map[string]string{"MEMBERS": "{{.Replicas}}:{{range .Peers}}{{.Host}} {{end}}"}}}
		s.ApplyDefaults()
		if _, err := c.ApplyImages(context.Background(), s, state.ImageIDs{Main: "sha256:v1"}, "test"); err != nil {
			t.Fatal(err)
		}
		converge(t, c)
	}
	scaleTo(2)
	scaleTo(3)
	got := map[string]string{}
	for _, spec := range rt.Created {
		if _, dup := got[spec.Name]; dup {
			t.Errorf("%s was created twice", spec.Name)
		}
		for _, e := range spec.Env {
			if v, ok := strings.CutPrefix(e, "MEMBERS="); ok {
				got[spec.Name] = v
			}
		}
	}
	want := map[string]string{
		"web-0": "2:web-0.web web-1.web ",
		"web-1": "2:web-0.web web-1.web ",
		"web-2": "3:web-0.web web-1.web web-2.web ",
	}
	if len(got) != len(want) {
		t.Fatalf("created %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: MEMBERS=%q, want %q", name, got[name], w)
		}
	}
}
