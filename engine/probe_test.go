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
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// A replica whose healthcheck runs ostset's probe gets the ostset binary
// mounted read-only at config.ProbePath, from wherever the binary is when the
// replica is created; the path is not part of the revision.
func TestProbeHealthcheckMountsTheOstsetBinary(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		Healthcheck: &config.Healthcheck{Test: []string{"CMD", config.ProbePath, "probe", config.ProbeTCP, "127.0.0.1:80"}}}}
	s.ApplyDefaults()
	var revisions []string
	for _, bin := range []string{"/usr/local/bin/ostset", "/home/me/bin/ostset"} {
		rt := enginetest.New()
		c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond,
			Binary: func() (engine.OwnBinary, error) { return engine.OwnBinary{Path: bin}, nil }}
		if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := c.Converge(ctx, "web"); err != nil {
			t.Fatal(err)
		}
		cancel()
		if len(rt.Created) != 1 {
			t.Fatalf("%d creates, want 1", len(rt.Created))
		}
		want := plan.Mount{Type: "bind", Source: bin, Target: config.ProbePath, ReadOnly: true}
		if !slices.Contains(rt.Created[0].Mounts, want) {
			t.Errorf("mounts %+v, want %+v among them", rt.Created[0].Mounts, want)
		}
		revisions = append(revisions, rt.Created[0].Revision)
	}
	if revisions[0] != revisions[1] {
		t.Errorf("revisions %v: the binary's path changed the revision", revisions)
	}
}

// Without a binary to mount (a moved or deleted one), the create fails and
// says why, rather than create a replica whose probe cannot run.
func TestProbeHealthcheckWithoutBinaryFailsTheCreate(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		Healthcheck: &config.Healthcheck{Test: []string{"CMD", config.ProbePath, "probe", config.ProbeHTTP, "http://127.0.0.1:80/"}}}}
	s.ApplyDefaults()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.Converge(ctx, "web")
	if err == nil || !strings.Contains(err.Error(), "no ostset binary to mount") {
		t.Errorf("converge: %v, want the missing binary named", err)
	}
	if len(rt.Created) != 0 {
		t.Errorf("%d replicas created without the probe binary", len(rt.Created))
	}
}
