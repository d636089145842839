//go:build integration

package docker

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// The runtime's own check: a container or volume of the set that another state
// directory made is never started, removed or mounted, whatever it is asked;
// once adopted it is the set's like any other. Observe reports the owner.
func TestAnotherOwnersObjectsRefused(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	theirs := map[string]string{plan.LabelOwner: "theirs", plan.LabelStateDir: "/elsewhere"}
	labels := func(extra map[string]string) map[string]string {
		l := map[string]string{plan.LabelSet: set}
		for k, v := range extra {
			l[k] = v
		}
		return l
	}
	id := rawContainer(t, ctx, set, set+"-0", labels(theirs), true)
	spec := replicaSpec(set, 1)
	vol := volumeFor(&spec)
	volLabels := labels(theirs)
	volLabels[plan.LabelClaim], volLabels[plan.LabelOrdinal], volLabels[testLabel] = "data", "1", set
	if _, err := rt.cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: vol, Labels: volLabels}); err != nil {
		t.Fatal(err)
	}

	obs, err := rt.Observe(ctx, set, engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := plan.Owner{ID: "theirs", Dir: "/elsewhere"}
	if len(obs.Replicas) != 1 || obs.Replicas[0].Owner != want || len(obs.Volumes) != 1 || obs.Volumes[0].Owner != want {
		t.Fatalf("observed %+v", obs)
	}

	mine := plan.Ownership{Self: plan.Owner{ID: "mine", Dir: "/here"}}
	spec.Labels[plan.LabelOwner], spec.Labels[plan.LabelStateDir] = "mine", "/here"
	spec.Volumes[0].Labels[plan.LabelOwner] = "mine"
	for _, c := range []context.Context{engine.WithOwnership(ctx, mine), ctx} {
		mustContain(t, rt.RemoveReplica(c, set, id, time.Second), "refusing to remove container "+set+"-0", "it belongs to state directory /elsewhere (id theirs)")
		mustContain(t, rt.StartReplica(c, set, id), "refusing to start container "+set+"-0")
		mustContain(t, rt.RemoveVolume(c, set, vol), "refusing to remove volume "+vol, "it belongs to state directory /elsewhere")
		_, err := rt.CreateReplica(c, spec)
		mustContain(t, err, spec.Name+": volume "+vol+" exists and is not this state directory's: it belongs to state directory /elsewhere (id theirs)")
	}
	if c := inspect(t, ctx, id); !c.State.Running {
		t.Errorf("another owner's container changed: %+v", c.State)
	}
	if _, err := rt.cli.ContainerInspect(ctx, spec.Name, client.ContainerInspectOptions{}); err == nil {
		t.Errorf("%s was created on another owner's volume", spec.Name)
	}

	adopted := engine.WithOwnership(ctx, plan.Ownership{Self: mine.Self, Adopted: []plan.Owner{want}})
	res, err := rt.CreateReplica(adopted, spec)
	if err != nil || len(res.ReusedVolumes) != 1 {
		t.Fatalf("create on an adopted volume: %+v, %v", res, err)
	}
	if got := inspect(t, ctx, res.ID).Config.Labels[plan.LabelOwner]; got != "mine" {
		t.Errorf("new replica's owner label %q", got)
	}
	if err := rt.RemoveReplica(adopted, set, id, time.Second); err != nil {
		t.Errorf("remove an adopted container: %v", err)
	}
}
