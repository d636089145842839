package prober

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

type fakeExec struct {
	probes   atomic.Int32
	pass     atomic.Bool
	noChecks bool // the engine runs no healthchecks (Podman without systemd)
}

func (f *fakeExec) ProbeHealth(context.Context, string, string, plan.Healthcheck) (bool, string, error) {
	f.probes.Add(1)
	return f.pass.Load(), "", nil
}

func (f *fakeExec) EngineRunsHealthchecks(context.Context) bool { return !f.noChecks }

var check = &plan.Healthcheck{Test: []string{"CMD", "x"}, Interval: time.Second}

// Only running replicas the engine still calls starting, with a
// healthcheck, are probed; one prober per container however often the set
// is shown; a replica the engine has judged since is no longer probed.
func TestSyncProbesOnlyStartingReplicasWithAHealthcheck(t *testing.T) {
	f := &fakeExec{}
	p := New(f)
	p.WhileStarting = true
	defer p.Close()
	rs := []plan.Replica{
		{ID: "a", State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: check},
		{ID: "b", State: plan.StateRunning, Health: plan.HealthStarting},                    // no healthcheck known
		{ID: "c", State: plan.StateRunning, Health: plan.HealthHealthy, Healthcheck: check}, // judged
		{ID: "d", State: plan.StateExited, Health: plan.HealthStarting, Healthcheck: check}, // stopped
		{ID: "e", State: plan.StateRunning, Health: plan.HealthNone},                        // none
	}
	p.Sync("web", rs, nil)
	p.Sync("web", rs, nil)
	if n := p.InFlight(); n != 1 {
		t.Fatalf("%d probers, want 1 (container a)", n)
	}
	f.pass.Store(true)
	select {
	case <-p.Wake("web"):
	case <-time.After(5 * time.Second):
		t.Fatal("no wake after the probe passed")
	}
	if r := p.Results("web")["a"]; !r.Ready || r.Since.IsZero() {
		t.Fatalf("result %+v, want ready", r)
	}
	rs[0].Health = plan.HealthHealthy
	p.Sync("web", rs, nil)
	if n := p.InFlight(); n != 0 {
		t.Fatalf("%d probers after the engine judged, want 0", n)
	}
	if got := len(p.Results("web")); got != 0 {
		t.Fatalf("%d results kept", got)
	}
	p.Sync("other", []plan.Replica{{ID: "x", State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: check}}, nil)
	p.Sync("web", nil, nil) // another set's are its own
	if n := p.InFlight(); n != 1 {
		t.Fatalf("%d probers, want other's 1", n)
	}
}

type slowExec struct {
	mu        sync.Mutex
	now, most int
	probes    int
}

func (f *slowExec) ProbeHealth(ctx context.Context, _, _ string, _ plan.Healthcheck) (bool, string, error) {
	f.mu.Lock()
	f.now++
	f.probes++
	f.most = max(f.most, f.now)
	f.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond):
	}
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
	return false, "", nil
}

func (f *slowExec) EngineRunsHealthchecks(context.Context) bool { return true }

// Many replicas starting at once share MaxInFlight probe slots.
func TestProbesInFlightAreBounded(t *testing.T) {
	f := &slowExec{}
	p := New(f)
	p.WhileStarting = true
	var rs []plan.Replica
	for i := range 12 {
		rs = append(rs, plan.Replica{ID: fmt.Sprint(i), State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: check})
	}
	p.Sync("web", rs, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.mu.Lock()
		n := f.probes
		f.mu.Unlock()
		if n >= 24 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Close()
	if f.most > MaxInFlight || f.most < 2 {
		t.Fatalf("%d probes at once, want 2..%d", f.most, MaxInFlight)
	}
}

// Off, WhileStarting leaves a starting replica to the engine's own
// healthcheck where the engine runs one, and probes it where it runs none.
func TestWhileStartingOffProbesOnlyWhereTheEngineRunsNoChecks(t *testing.T) {
	rs := []plan.Replica{{ID: "a", State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: check}}
	for _, noChecks := range []bool{false, true} {
		f := &fakeExec{noChecks: noChecks}
		p := New(f)
		p.Sync("web", rs, nil)
		want := 0
		if noChecks {
			want = 1
		}
		if n := p.InFlight(); n != want {
			t.Errorf("engine runs no checks %v: %d probers, want %d", noChecks, n, want)
		}
		p.Close()
	}
}

// A container this process started is probed at once, before any
// observation; the next observation takes its prober over (the same one,
// its probes counted on) when it carries the same healthcheck, begins it
// anew with the one it carries otherwise, and ends it when the container is
// not there. The image's own healthcheck (nil) waits for the observation.
func TestStartedProbesBeforeTheObservation(t *testing.T) {
	f := &fakeExec{}
	p := New(f)
	p.WhileStarting = true
	defer p.Close()
	p.Started("web", "img", nil)
	p.Started("web", "a", check)
	p.Started("web", "a", check)
	if n := p.InFlight(); n != 1 {
		t.Fatalf("%d probers, want 1 (container a)", n)
	}
	for deadline := time.Now().Add(5 * time.Second); f.probes.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no probe before an observation")
		}
	}
	started := time.Now()
	obs := []plan.Replica{{ID: "a", State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: check, StartedAt: started}}
	p.mu.Lock()
	w := p.byID["a"]
	p.mu.Unlock()
	p.Sync("web", obs, nil)
	p.mu.Lock()
	same, at := p.byID["a"] == w, w.started
	p.mu.Unlock()
	if !same || !at.Equal(started) {
		t.Fatalf("the observation did not take the prober over (same %v, started %v)", same, at)
	}
	other := *check
	other.Test = []string{"CMD", "/bin/sh", "-c", "x"}
	p.Started("web", "b", check)
	p.Sync("web", append(obs, plan.Replica{ID: "b", State: plan.StateRunning, Health: plan.HealthStarting, Healthcheck: &other, StartedAt: started}), nil)
	p.mu.Lock()
	hc := p.byID["b"].hc
	p.mu.Unlock()
	if !sameCheck(hc, other) {
		t.Fatalf("prober of b runs %q, want the container's %q", hc.Test, other.Test)
	}
	p.Started("web", "c", check)
	p.Sync("web", obs, nil) // b and c are gone
	if n := p.InFlight(); n != 1 {
		t.Fatalf("%d probers, want 1 (container a)", n)
	}
}

// Started, like Sync, leaves a starting replica to the engine's own
// healthcheck where the engine runs one and WhileStarting is off.
func TestStartedFollowsWhileStarting(t *testing.T) {
	p := New(&fakeExec{})
	defer p.Close()
	p.Started("web", "a", check)
	if n := p.InFlight(); n != 0 {
		t.Fatalf("%d probers with WhileStarting off on Docker", n)
	}
}
