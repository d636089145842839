package docker

import (
	"time"

	"github.com/moby/moby/api/types/container"
)

// StartIntervalGiven is the start interval a healthcheck without one is given
// at create on an engine that takes the field (API 1.44+), so that the
// engine's own status agrees with ostset's prober soon after the replica is
// ready rather than one interval after it started.
const StartIntervalGiven = time.Second

// healthcheckAtCreate is the healthcheck h as a replica is created with it:
// given a start interval (withStartInterval) where the engine takes the field
// (API 1.44+), as it is below.
func (r *Runtime) healthcheckAtCreate(h *container.HealthConfig) *container.HealthConfig {
	if !r.HasStartInterval() {
		return h
	}
	return withStartInterval(h)
}

// withStartInterval returns the healthcheck h given a start interval when it
// sets none: StartIntervalGiven, with a start period of one interval when it
// has none (Docker uses the start interval only within the start period).
// That keeps what the healthcheck means: by default Docker runs no probe in
// the first interval, so no failure counts there; with it, probes run there
// and their failures are not counted either, and the first success makes the
// container healthy. It is applied at create only, not to the revision hash:
// the set's template is unchanged. A healthcheck that disables the image's
// (NONE), is the image's own (nil), or whose interval is no longer than
// StartIntervalGiven is returned as it is.
func withStartInterval(h *container.HealthConfig) *container.HealthConfig {
	if h == nil || h.StartInterval > 0 {
		return h
	}
	if _, ok := probeCommand(h.Test); !ok {
		return h
	}
	interval := h.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	if interval <= StartIntervalGiven {
		return h
	}
	out := *h
	out.StartInterval = StartIntervalGiven
	if out.StartPeriod <= 0 {
		out.StartPeriod = interval
	}
	return &out
}
