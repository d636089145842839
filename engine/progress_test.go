package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestSameWait(t *testing.T) {
	a := `web-0 not ready (health: unhealthy: "took 1.2ms: \"x\" failed")`
	b := `web-0 not ready (health: unhealthy: "took 3.4ms: \"y\" failed")`
	if sameWait(a) != sameWait(b) {
		t.Errorf("%q and %q differ by output only", sameWait(a), sameWait(b))
	}
	if sameWait("web-0 not ready (restarting: exit 1, 3 restarts)") == sameWait("web-0 not ready (restarting: exit 1, 4 restarts)") {
		t.Error("another restart is news")
	}
	// A back-off's countdown changes at every pass; the reason does not.
	if a, b := "web-1 exited again (exit 1); recreating it in 4m25s (crash-loop back-off)", "web-1 exited again (exit 1); recreating it in 4m23s (crash-loop back-off)"; sameWait(a) != sameWait(b) {
		t.Errorf("%q and %q differ by the countdown only", sameWait(a), sameWait(b))
	}
	if sameWait("web-1 exited again (exit 1); recreating it in 20s (crash-loop back-off)") == sameWait("web-1 exited again (exit 2); recreating it in 20s (crash-loop back-off)") {
		t.Error("another exit code is news")
	}
}

// A replica in crash-loop back-off makes one waiting line, not one a pass as
// its countdown runs down.
func TestProgressWaitsByReasonNotCountdown(t *testing.T) {
	var events []string
	now := t0
	c := &Controller{Store: state.Store{Dir: t.TempDir()}, Now: func() time.Time { return now },
		Report: func(e state.Event) { events = append(events, e.Message) }}
	p := progress{c: c, set: "web"}
	for i := range 5 {
		now = t0.Add(time.Duration(2*i) * time.Second)
		w := fmt.Sprintf("web-1 exited again; recreating it in %s (crash-loop back-off)", time.Duration(20-2*i)*time.Second)
		p.observed(plan.Plan{Status: plan.Status{Name: "web", Waiting: []string{w}}})
	}
	if want := []string{"waiting: web-1 exited again; recreating it in 20s (crash-loop back-off)"}; !slices.Equal(events, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}

// A probe output that changes with every probe does not make a new waiting
// event each time; a new restart does. The reminder and the stopped wait
// carry the latest output.
func TestProgressWaitsByReasonNotOutput(t *testing.T) {
	var events []string
	now := t0
	c := &Controller{Store: state.Store{Dir: t.TempDir()}, Now: func() time.Time { return now },
		Report: func(e state.Event) { events = append(events, e.Message) }}
	p := progress{c: c, set: "web"}
	for i, w := range []string{
		`web-0 not ready (health: unhealthy: "took 1ms")`,
		`web-0 not ready (health: unhealthy: "took 2ms")`,
		`web-0 not ready (health: unhealthy: "took 3ms")`,
		`web-0 not ready (restarting: exit 1, 1 restart)`,
	} {
		now = t0.Add(time.Duration(i) * 10 * time.Second)
		p.observed(plan.Plan{Status: plan.Status{Name: "web", Waiting: []string{w}}})
	}
	want := []string{`waiting: web-0 not ready (health: unhealthy: "took 1ms")`, `waiting: web-0 not ready (restarting: exit 1, 1 restart)`}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}

	events = nil
	p.observed(plan.Plan{Status: plan.Status{Name: "web", Waiting: []string{`web-0 not ready (restarting: exit 1, 1 restart)`}}})
	now = now.Add(remindEvery)
	p.observed(plan.Plan{Status: plan.Status{Name: "web", Waiting: []string{`web-0 not ready (health: starting: 1 restart, "took 9ms")`}}})
	now = now.Add(remindEvery)
	p.observed(plan.Plan{Status: plan.Status{Name: "web", Waiting: []string{`web-0 not ready (health: starting: 1 restart, "took 8ms")`}}})
	if len(events) != 2 || events[1] != `still waiting after 30s: web-0 not ready (health: starting: 1 restart, "took 8ms")` {
		t.Errorf("events %q", events)
	}
}
