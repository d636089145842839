// Package health holds the readiness rules: Docker healthchecks are readiness;
// ready, available (minReadySeconds), failed, and the crash-loop back-off of a
// replica that keeps failing, why a replica is not ready, and the memory of
// since when each container has been ready. It imports none of the engine.
package health

import "time"

// Container is what readiness is decided from.
type Container struct {
	State      string    // Docker state: running, exited, ...
	Health     string    // "", starting, healthy, unhealthy ("" = no healthcheck)
	ReadySince time.Time // when it became ready; zero if unknown
	// Probed: ostset's own run of the healthcheck passed while the engine's
	// status is still "starting" (see Probing).
	Probed bool
	// Unstarted: the container has a startup probe that has not passed for
	// its current run (or ostset just restarted it): not ready, whatever its
	// health says, as Kubernetes counts no readiness before startup.
	Unstarted bool
}

// Ready: running and, if it has a healthcheck, healthy, or still starting in
// the engine's eyes while ostset's own probe of the same healthcheck passed.
// No healthcheck: running means ready. An unstarted container is never ready.
func Ready(c Container) bool {
	if c.State != "running" || c.Unstarted {
		return false
	}
	return c.Health == "" || c.Health == "healthy" || c.Health == "starting" && c.Probed
}

// Available: ready for at least minReady. With minReady 0 every ready container is
// available; otherwise an unknown ReadySince counts as not yet available.
func Available(c Container, minReady time.Duration, now time.Time) bool {
	if !Ready(c) {
		return false
	}
	if minReady <= 0 {
		return true
	}
	return !c.ReadySince.IsZero() && now.Sub(c.ReadySince) >= minReady
}

// AvailableAt is when a ready container becomes available (zero if unknown).
func AvailableAt(c Container, minReady time.Duration) time.Time {
	if c.ReadySince.IsZero() {
		return time.Time{}
	}
	return c.ReadySince.Add(minReady)
}

// Failed: exited or dead, and Docker is not restarting it. Such a replica is
// removed and recreated, as Kubernetes recreates Failed and Succeeded pods.
func Failed(c Container) bool {
	return c.State == "exited" || c.State == "dead"
}

// Remember carries the readiness memory mem (container ID → ready since)
// over one observation, ready (the ready containers: ID → ready since, as
// observed): a container ready now keeps the earliest time remembered for it
// while it stayed ready, and ready gets that time; containers gone or no
// longer ready are forgotten. It returns the memory, nil when empty.
func Remember(mem, ready map[string]time.Time) map[string]time.Time {
	for id, since := range ready {
		if t, ok := mem[id]; ok && !since.Before(t) {
			ready[id] = t
			continue
		}
		if mem == nil {
			mem = map[string]time.Time{}
		}
		mem[id] = since
	}
	for id := range mem {
		if _, ok := ready[id]; !ok {
			delete(mem, id)
		}
	}
	if len(mem) == 0 {
		return nil
	}
	return mem
}
