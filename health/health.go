// Package health holds the readiness rules: Docker healthchecks are readiness;
// ready, available (minReadySeconds), failed, and the crash-loop back-off of a
// replica that keeps failing. It imports none of the engine.
package health

import "time"

// Container is what readiness is decided from.
type Container struct {
	State      string    // Docker state: running, exited, ...
	Health     string    // "", starting, healthy, unhealthy ("" = no healthcheck)
	ReadySince time.Time // when it became ready; zero if unknown
}

// Ready: running and, if it has a healthcheck, healthy. No healthcheck: running means ready.
func Ready(c Container) bool {
	if c.State != "running" {
		return false
	}
	return c.Health == "" || c.Health == "healthy"
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
