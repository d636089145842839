//go:build integration

package docker

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// A waiting command observes as soon as Watch signals. After a container's die,
// Docker's list can still show it running; the observation inspects the
// containers whose die a Watch of the set saw, so it shows the exit.
func TestCfObserveAfterDieShowsTheExit(t *testing.T) {
	t.Parallel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	set := "cf-" + hex.EncodeToString(b)
	t.Cleanup(func() { cleanup(t, set) })
	ctx := testCtx(t)
	wake, err := rt.Watch(ctx, set)
	if err != nil {
		t.Fatal(err)
	}
	spec := replicaSpec(set, 0)
	spec.Restart = "no"
	volumeFor(&spec) // unmounted as the container exits, which keeps the list behind longer
	created, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cli.ContainerKill(ctx, created.ID, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		t.Fatal(err)
	}
	// Each signal is followed by an observation, as in Controller.loop; the
	// die's is the last, so the exit must be seen before the signals stop.
	for {
		select {
		case <-wake:
		case <-time.After(30 * time.Second):
			t.Fatal("the exit was not observed after the last signal")
		}
		obs, err := rt.Observe(ctx, set, engine.ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(obs.Replicas) == 1 && obs.Replicas[0].State == plan.StateExited {
			return
		}
	}
}
