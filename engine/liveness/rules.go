// Package liveness runs replicas' liveness and startup probes for whoever
// drives a set (a waiting command, the daemon), as the kubelet runs a pod's:
// the startup probe first, holding readiness and liveness back until it
// passes; then the liveness probe every period; failureThreshold failures in
// a row of either have the container restarted in place (same container,
// same name and volumes), with the kubelet's back-off between restarts.
//
// The rules (when to probe, what the results mean) are Probing's, pure and
// on a clock handed in; Manager schedules the probes, one goroutine per
// container; Pass brings the verdicts into a pass of the controller: it
// records them in the set's state, restarts what failed, and marks the
// replicas that have not started (plan.Replica.Unstarted), so that the
// planner sees them only through the observation.
//
// It imports engine/plan, engine/state, config and health; never the engine,
// the daemon or the Docker SDK.
package liveness

import (
	"strings"
	"time"

	"github.com/ostset/ostset/config"
)

// Kubernetes' defaults for a probe's fields left at zero.
const (
	DefaultPeriod    = 10 * time.Second
	DefaultTimeout   = 1 * time.Second
	DefaultThreshold = 3
)

// Spec is one probe as ostset runs it.
type Spec struct {
	Test []string
	// Period is the time from one probe's start to the next's.
	Period  time.Duration
	Timeout time.Duration
	// InitialDelay is how long after the container started the first probe runs.
	InitialDelay time.Duration
	// Threshold is how many failures in a row fail the probe.
	Threshold int
}

// SpecOf is the probe a set file's liveness or startup field describes
// (nil for nil), with Kubernetes' defaults for the fields left at zero:
// interval is periodSeconds, retries failureThreshold, startPeriod
// initialDelaySeconds.
func SpecOf(h *config.Healthcheck) *Spec {
	if h == nil {
		return nil
	}
	s := &Spec{Test: h.Test, Period: time.Duration(h.Interval), Timeout: time.Duration(h.Timeout),
		InitialDelay: time.Duration(h.StartPeriod), Threshold: h.Retries}
	if s.Period <= 0 {
		s.Period = DefaultPeriod
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Threshold <= 0 {
		s.Threshold = DefaultThreshold
	}
	return s
}

// Probing is the probe record of one run of a container: its startup probe
// until it passes, then its liveness probe, until one of them fails.
type Probing struct {
	Startup, Liveness *Spec
	// Started is when the container's run began: initial delays count from it.
	Started time.Time

	startedOK time.Time // when the startup probe passed (Started without one)
	attempts  int
	lastStart time.Time // of the last probe of the current phase
	failures  int       // in a row, of the probe of the current phase
	failed    string    // why the container is to be restarted; "" while not
}

// NewProbing starts the record of a container run that began at started.
// passed, if not zero, is when its startup probe passed as recorded before
// (by another process): it is not run again for this run.
func NewProbing(startup, liveness *Spec, started, passed time.Time) *Probing {
	p := &Probing{Startup: startup, Liveness: liveness, Started: started}
	switch {
	case startup == nil:
		p.startedOK = started
	case !passed.IsZero():
		p.startedOK = passed
	}
	return p
}

// current is the probe of the phase the record is in (nil: nothing to run).
func (p *Probing) current() *Spec {
	if p.startedOK.IsZero() {
		return p.Startup
	}
	return p.Liveness
}

// Next is when the next probe is due, with the probe to run; false once
// nothing is left to run (a probe failed, or the startup probe passed and
// there is no liveness probe).
func (p *Probing) Next() (time.Time, *Spec, bool) {
	s := p.current()
	if s == nil || p.failed != "" {
		return time.Time{}, nil, false
	}
	if !p.lastStart.IsZero() {
		return p.lastStart.Add(s.Period), s, true
	}
	first := p.Started.Add(s.InitialDelay)
	if s == p.Liveness && p.Startup != nil {
		// The first liveness probe comes a period after startup passed, as
		// the kubelet's liveness worker skips its ticks until then.
		first = later(first, p.startedOK.Add(s.Period))
	}
	return first, s, true
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Record takes in one probe of the current phase that started at start and
// ended at end, with its output. It reports whether the verdict changed:
// the startup probe passed, or a probe failed Threshold times in a row.
func (p *Probing) Record(passed bool, output string, start, end time.Time) bool {
	s := p.current()
	if s == nil || p.failed != "" {
		return false
	}
	p.attempts++
	p.lastStart = start
	if passed {
		p.failures = 0
		if s == p.Startup && p.startedOK.IsZero() {
			p.startedOK, p.lastStart = end, time.Time{} // the liveness phase begins
			return true
		}
		return false
	}
	p.failures++
	if p.failures < s.Threshold {
		return false
	}
	kind := "Liveness"
	if s == p.Startup && p.startedOK.IsZero() {
		kind = "Startup"
	}
	p.failed = kind + " probe failed: " + oneLine(output)
	return true
}

// StartupPassed is when the startup probe passed (zero while it has not;
// the run's start when there is none).
func (p *Probing) StartupPassed() time.Time { return p.startedOK }

// Failed is why the container is to be restarted; "" while it is not.
func (p *Probing) Failed() string { return p.failed }

// Attempts is how many probes were recorded.
func (p *Probing) Attempts() int { return p.attempts }

// oneLine is the last non-empty line of a probe's output, at most 200 bytes.
func oneLine(s string) string {
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
		}
	}
	if line == "" {
		return "no output"
	}
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}
