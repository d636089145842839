package engine_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A replica the engine refuses for good (a host port another container
// holds) ends the wait at once with the engine's words, instead of being
// retried until the deadline; the state records why, for get and status.
func TestConvergeStopsOnPermanentError(t *testing.T) {
	rt := enginetest.New()
	const why = "Bind for 0.0.0.0:21400 failed: port is already allocated"
	rt.Refuse = map[string]string{"web-1": why}
	c, _ := newController(t, rt, 2, "v1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Converge(ctx, "web")
	var failed *engine.FailedError
	if !errors.As(err, &failed) {
		t.Fatalf("converge: %v, want a *FailedError", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the wait ran to its deadline: %v", err)
	}
	if !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "web-1") {
		t.Errorf("error %q does not carry the engine's words", err)
	}
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	if f := st.Failures["web-1"]; !strings.Contains(f.Reason, why) {
		t.Errorf("recorded failures %v, want web-1's reason", st.Failures)
	}
	status, _, err := c.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Pending) != 1 || status.Pending[0].Name != "web-1" || !strings.Contains(status.Pending[0].Reason, why) {
		t.Errorf("pending %+v, want web-1 with the engine's words", status.Pending)
	}

	// Scaled away, the ordinal's failure is forgotten.
	apply(t, c.Store, 1, "v1")
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.Store.Load("web"); len(st.Failures) != 0 {
		t.Errorf("failures %v kept for an ordinal scaled away", st.Failures)
	}
	apply(t, c.Store, 2, "v1")

	// Once the cause is gone (the port freed), the next wait creates it and
	// forgets the failure.
	rt.Refuse = nil
	converge(t, c)
	if st, _ := c.Store.Load("web"); len(st.Failures) != 0 {
		t.Errorf("failures %v kept after the replica was created", st.Failures)
	}
}

// A command following the daemon stops on the permanent failure the daemon
// recorded, with its words; the daemon itself goes on retrying.
func TestFollowStopsOnTheDaemonsPermanentError(t *testing.T) {
	rt := enginetest.New()
	const why = "invalid mount config for type \"bind\": bind source path does not exist: /srv/conf"
	rt.Refuse = map[string]string{"web-0": why}
	store := state.Store{Dir: t.TempDir()}
	apply(t, store, 1, "v1")
	runDaemonAs(t, rt, store, os.Getpid()+1)
	f := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := f.Follow(ctx, "web", 0, "")
	var failed *engine.FailedError
	if !errors.As(err, &failed) || !strings.Contains(err.Error(), why) {
		t.Fatalf("follow: %v, want a *FailedError with the engine's words", err)
	}
}
