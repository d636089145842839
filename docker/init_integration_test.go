//go:build integration

package docker

import (
	"slices"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// An init container is created from a spec labelled io.ostset.init, keeps its
// replica's hostname, is observed as an init container of its ordinal with its
// exit code (neither a replica nor foreign), and LogTail reads its last lines.
func TestInitContainerObserved(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	spec := replicaSpec(set, 0)
	spec.Name, spec.Hostname, spec.Aliases = plan.InitContainerName(set, 0, "check"), plan.ReplicaName(set, 0), nil
	spec.Labels[plan.LabelInit] = "check"
	spec.Entrypoint, spec.Restart = []string{"/app", "fail"}, "no"
	spec.Healthcheck = &plan.Healthcheck{Test: []string{"NONE"}}
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	var obs plan.Observed
	waitFor(t, 20*time.Second, "the init container to exit", func() bool {
		if obs, err = rt.Observe(ctx, set, engine.ObserveOptions{}); err != nil {
			t.Fatal(err)
		}
		return len(obs.Inits) == 1 && obs.Inits[0].State == plan.StateExited
	})
	c := obs.Inits[0]
	if c.ID != res.ID || c.Name != spec.Name || c.Ordinal != 0 || c.Init != "check" || c.Revision != spec.Revision || c.ExitCode != 1 {
		t.Errorf("observed %+v", c)
	}
	if len(obs.Replicas)+len(obs.Foreign) > 0 {
		t.Errorf("the init container counted as a replica or foreign: %+v %+v", obs.Replicas, obs.Foreign)
	}
	lines, err := rt.LogTail(ctx, set, res.ID, 5)
	if err != nil || !slices.Equal(lines, []string{"failing on purpose"}) {
		t.Errorf("LogTail = %q, %v", lines, err)
	}
	if _, err := rt.LogTail(ctx, "other", res.ID, 5); err == nil {
		t.Error("LogTail read a container of another set")
	}
	in, err := rt.cli.ContainerInspect(ctx, res.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := in.Container.Config.Hostname; h != spec.Hostname {
		t.Errorf("hostname %q, want %q", h, spec.Hostname)
	}
	if err := rt.RemoveReplica(ctx, set, res.ID, time.Second); err != nil {
		t.Fatal(err)
	}
}
