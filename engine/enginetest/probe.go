package enginetest

import (
	"context"
	"fmt"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// The fake's side of ostset's prober (engine/prober.Exec): the containers of
// Starting images stay "starting" in the engine's eyes; ProbeHealth passes
// for those named in Passing.

// SetPassing makes ostset's probe of the named replica pass (true) or fail.
func (r *Runtime) SetPassing(name string, pass bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.passing == nil {
		r.passing = map[string]bool{}
	}
	r.passing[name] = pass
}

// SetEngineChecks says whether the fake engine runs healthchecks itself
// (default true; false: as Podman without systemd).
func (r *Runtime) SetEngineChecks(runs bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noEngineChecks = !runs
}

// Probes is how many probes ran on the named replica, and the most that
// ran at once on any one container.
func (r *Runtime) Probes(name string) (n, mostAtOnce int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.probes[name], r.mostInFlight
}

// ProbeHealth implements prober.Exec: it fails for a container that is gone
// or not running, and passes as SetPassing says.
func (r *Runtime) ProbeHealth(ctx context.Context, _, id string, _ plan.Healthcheck) (bool, string, error) {
	r.mu.Lock()
	name := ""
	for n, c := range r.containers {
		if c.ID == id && c.State == plan.StateRunning {
			name = n
		}
	}
	if name == "" {
		r.mu.Unlock()
		return false, "", fmt.Errorf("container %s is not running", id)
	}
	if r.probes == nil {
		r.probes, r.inFlight = map[string]int{}, map[string]int{}
	}
	r.probes[name]++
	r.inFlight[id]++
	r.mostInFlight = max(r.mostInFlight, r.inFlight[id])
	pass := r.passing[name]
	r.mu.Unlock()
	select { // a probe takes a little time, so overlapping ones would show
	case <-ctx.Done():
	case <-time.After(time.Millisecond):
	}
	r.mu.Lock()
	r.inFlight[id]--
	r.mu.Unlock()
	if !pass {
		return false, "not ready", nil
	}
	return true, "", nil
}

// EngineRunsHealthchecks implements prober.Exec.
func (r *Runtime) EngineRunsHealthchecks(context.Context) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.noEngineChecks
}

// SetHealthOf sets the engine's health of the named replica (as its own
// healthcheck would report), dropping what it carries for the prober once
// the engine has its verdict.
func (r *Runtime) SetHealthOf(name, health string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.Health = health
	if health != plan.HealthStarting {
		c.Healthcheck = nil
	}
	r.containers[name] = c
}

// startingCheck is the healthcheck a Starting container carries: the spec's,
// or a 10 s one.
func startingCheck(spec plan.ReplicaSpec) *plan.Healthcheck {
	if spec.Healthcheck != nil {
		h := *spec.Healthcheck
		return &h
	}
	return &plan.Healthcheck{Test: []string{"CMD", "true"}, Interval: 10 * time.Second}
}

// RestartStarting makes the named replica start again in place (its
// restart policy), with the engine's health back at "starting".
func (r *Runtime) RestartStarting(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.containers[name]
	c.Health, c.StartedAt = plan.HealthStarting, time.Now()
	r.containers[name] = c
}
