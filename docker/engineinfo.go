package docker

import (
	"context"
	"strings"
	"sync"

	"github.com/moby/moby/client"
)

// engineInfo is what the runtime learns once about the engine it talks to.
type engineInfo struct {
	mu     sync.Mutex
	known  bool
	podman bool
}

// isPodman tells whether the engine is Podman's Docker-compatible service
// (its /version names a component "Podman Engine"). Podman differs in what
// matters to readiness: its container list carries no health in Status, and
// without systemd it never runs a healthcheck (inspect says "starting"
// forever). A failed /version call counts as Docker and is asked again.
func (r *Runtime) isPodman(ctx context.Context) bool {
	e := &r.engine
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.known {
		return e.podman
	}
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	v, err := r.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return false
	}
	e.known = true
	for _, c := range v.Components {
		if isPodmanComponent(c.Name) {
			e.podman = true
		}
	}
	return e.podman
}

func isPodmanComponent(name string) bool {
	return strings.EqualFold(strings.TrimSpace(name), "Podman Engine")
}

// EngineRunsHealthchecks tells whether the engine runs containers'
// healthchecks itself: Docker does; Podman does only from systemd timers,
// which its API service does not have, so ostset's probes are the
// healthcheck there (health.Probing).
func (r *Runtime) EngineRunsHealthchecks(ctx context.Context) bool { return !r.isPodman(ctx) }

// EngineName is "Podman" or "Docker", for messages.
func (r *Runtime) EngineName(ctx context.Context) string {
	if r.isPodman(ctx) {
		return "Podman"
	}
	return "Docker"
}
