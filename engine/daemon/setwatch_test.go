package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// A watcher reads a set's status at once after a die event, when Docker's
// list can still show the replica running: through Changes.Runtime the
// status inspects the containers that died, and shows the exit.
func TestWatchChangesStatusShowsADieTheListHasNotShown(t *testing.T) {
	fake := enginetest.New()
	store := state.Store{Dir: t.TempDir()}
	c := &engine.Controller{Runtime: fake, Store: store}
	apply(t, store, 2, "v1")
	if err := c.Converge(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := &events{}
	changes, err := daemon.WatchChanges(ctx, store, ev, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	c.Runtime = changes.Runtime(c.Runtime)
	crashed := fake.ExitUnlisted("web-1")
	ev.send(engine.SetEvent{Set: "web", ID: crashed, Name: "web-1", Action: "die"})
	select {
	case name := <-changes.C:
		if name != "web" {
			t.Fatalf("change of %q, want web", name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change after the die")
	}
	status, _, err := c.Status(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range status.Containers {
		if r.Name == "web-1" && r.State != plan.StateExited {
			t.Errorf("web-1 is %s after its die event, want exited", r.State)
		}
	}
}
