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

// The networks a compose project's set creates carry the project's label;
// RemoveLabelled finds by that label, and removes, the containers this state
// directory's jobs left and the networks made for the project, and nothing of
// another project or another state directory.
func TestRemoveLabelled(t *testing.T) {
	ctx := context.Background()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: time.Millisecond}
	s := config.Set{Name: "p-db", Replicas: ptr(1), Network: "p_default",
		Template: config.Template{Image: "db", Labels: map[string]string{config.LabelComposeProject: "p"}}}
	s.ApplyDefaults()
	storeSpec(t, c.Store, s)
	if err := c.Converge(ctx, "p-db"); err != nil {
		t.Fatal(err)
	}
	if got := rt.NetworkLabels["p_default"][config.LabelComposeProject]; got != "p" {
		t.Fatalf("network p_default labels %v, want the project p", rt.NetworkLabels["p_default"])
	}
	self, err := c.Store.Owner()
	if err != nil {
		t.Fatal(err)
	}
	job := func(name, project, owner string) {
		labels := map[string]string{plan.LabelSet: name, plan.LabelJob: "true", config.LabelComposeProject: project, plan.LabelOwner: owner}
		if _, err := rt.CreateReplica(ctx, plan.ReplicaSpec{Set: name, Name: name + "-0", Labels: labels}); err != nil {
			t.Fatal(err)
		}
	}
	job("p-migrate", "p", self.ID)    // left by an up cut short
	job("p-seed", "p", "another-dir") // another state directory's project p
	job("q-migrate", "q", self.ID)    // another project
	if _, err := rt.EnsureNetwork(ctx, "q_default", map[string]string{config.LabelComposeProject: "q"}); err != nil {
		t.Fatal(err)
	}
	rt.Log = nil
	lines, err := c.RemoveLabelled(ctx, config.LabelComposeProject, "p")
	if err != nil {
		t.Fatal(err)
	}
	if want := "p-migrate: job container p-migrate-0 removed"; len(lines) != 1 || lines[0] != want {
		t.Errorf("lines %q, want %q", lines, want)
	}
	if want := []string{"remove p-migrate-0"}; !slices.Equal(rt.Log, want) {
		t.Errorf("log %v, want %v", rt.Log, want)
	}
	if !slices.Equal(rt.NetworksRemoved, []string{"p_default"}) {
		t.Errorf("networks removed %v, want p_default", rt.NetworksRemoved)
	}
	if strings.Contains(strings.Join(lines, " "), "seed") {
		t.Errorf("another state directory's job removed: %v", lines)
	}
}
