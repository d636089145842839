package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/prober"
	"github.com/ostset/ostset/engine/state"
)

// The daemon probes too: a replica the engine still calls starting is made
// ready by ostset's probe, and the verdict makes a pass (no event, resync or
// poll would for an hour), so an OrderedReady set rolls out.
func TestDaemonPassesOnTheProbersVerdict(t *testing.T) {
	rt := enginetest.New()
	rt.Starting = map[string]bool{"sha256:v1": true}
	for _, n := range []string{"web-0", "web-1"} {
		rt.SetPassing(n, true)
	}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: time.Hour}
	c.Prober = prober.New(rt)
	c.Prober.WhileStarting = true
	defer c.Prober.Close()
	d := &daemon.Daemon{Controller: c, Resync: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	apply(t, state.Store{Dir: c.Store.Dir}, 2, "v1")
	awaitCondition(t, func() bool { return len(running(rt)) == 2 })
	awaitCondition(t, func() bool {
		s, _, err := c.Status(context.Background(), "web")
		return err == nil && s.ReadyReplicas == 2
	})
}
