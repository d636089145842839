package daemon

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// dieDuringList has web-0 die while the engine answers an observation, as
// when every replica is killed at once: its die event reaches the daemon
// during the list, which still shows it running (Docker's list catches up a
// moment after the event).
type dieDuringList struct {
	*enginetest.Runtime
	o    *observations
	once bool
}

func (r *dieDuringList) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	if r.once {
		r.once = false
		id := r.ExitUnlisted("web-0")
		r.o.event(engine.SetEvent{Set: set, ID: id, Name: "web-0", Action: "die"})
	}
	return r.Runtime.Observe(ctx, set, opts)
}

// A pass answering web-1's die, during whose observation web-0's die arrived,
// does not act on a view that shows web-0 running: it plans again, and the
// pass that acts answers both.
func TestNoPassPlansFromAListOlderThanADieItWasSent(t *testing.T) {
	fake := enginetest.New()
	o := newObservations()
	o.streaming(true)
	hook := &dieDuringList{Runtime: fake, o: o}
	c := &engine.Controller{Runtime: observing{Runtime: hook, o: o}, Store: state.Store{Dir: t.TempDir()}}
	replicas := 3
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: "v1"}}
	s.ApplyDefaults()
	if _, err := c.Store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		st.Spec = s
		st.SetUpdateRevision(s.RevisionSpec("sha256:v1"), "test", time.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// pass is one pass as Daemon.process runs it.
	pass := func() (plan.Plan, error) {
		pl, err := c.Pass(context.Background(), "web")
		o.settle("web", err == nil && len(pl.Actions) == 0, !errors.Is(err, engine.ErrReplan))
		return pl, err
	}
	for range 3 {
		if _, err := pass(); err != nil {
			t.Fatal(err)
		}
	}
	id1 := fake.ExitUnlisted("web-1")
	o.event(engine.SetEvent{Set: "web", ID: id1, Name: "web-1", Action: "die"})
	hook.once = true
	fake.Log = nil
	pl, err := pass()
	if !errors.Is(err, engine.ErrReplan) || len(fake.Log) != 0 {
		t.Fatalf("the pass acted on a list older than web-0's die: err %v, plan\n%s\nlog %v", err, pl, fake.Log)
	}
	pl, err = pass()
	if err != nil {
		t.Fatal(err)
	}
	deleted := func(name string) bool {
		return slices.ContainsFunc(pl.Actions, func(a plan.Action) bool { return a.Kind == plan.ActDelete && a.Name == name })
	}
	if !deleted("web-0") || !deleted("web-1") {
		t.Errorf("the next pass does not answer both dies: plan\n%s", pl)
	}
}
