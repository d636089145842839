package health

import "time"

// The rules of ostset's own probing of a replica's healthcheck while it
// starts (the scheduling and the exec calls live with whoever drives the set
// and in the runtime). Docker runs a container's first healthcheck one
// interval after it starts (30 s by default), so an ordered rollout would wait
// up to an interval after each replica is ready. Like Kubernetes' kubelet,
// ostset probes at once when the container runs, then at a short interval
// that doubles up to the healthcheck's own, at most MaxStartGap.

// Healthcheck defaults, as Docker applies them to fields left at zero.
const (
	DefaultInterval = 30 * time.Second
	DefaultTimeout  = 30 * time.Second
	DefaultRetries  = 3
	// FirstProbeGap is the gap after the first failed probe of a starting
	// container; each further gap doubles, up to the healthcheck's interval
	// and at most MaxStartGap.
	FirstProbeGap = 100 * time.Millisecond
	// MaxStartGap bounds the gap between probes of a container that has not
	// passed yet: how late after the app is ready ostset can notice it. A gap
	// doubling up to the interval alone would notice an app ready after T up
	// to about T late (at 3.1 s for an app ready at 2 s).
	MaxStartGap = 250 * time.Millisecond
)

// Check is a healthcheck's timing, as its container carries it (zero fields
// take Docker's defaults).
type Check struct {
	Interval    time.Duration
	Timeout     time.Duration
	Retries     int
	StartPeriod time.Duration
}

// Defaults returns c with Docker's defaults in the fields left at zero.
func (c Check) Defaults() Check {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries <= 0 {
		c.Retries = DefaultRetries
	}
	return c
}

// Probing is the probe record of one running container. Its zero value is
// not usable: start one with NewProbing.
//
// Where the engine runs the container's healthcheck itself (EngineRuns),
// ostset's probes only bring the first success forward: the first passing
// probe makes the replica ready, and no probe runs after it (Docker's own
// check then decides). Where the engine runs none (Podman without systemd),
// the probes are the healthcheck: after the first success they run at the
// healthcheck's interval, and Retries consecutive failures make the replica
// not ready until a probe passes again; failures before the first success
// within StartPeriod are not counted, as Docker does not count them.
type Probing struct {
	Check      Check
	EngineRuns bool
	// Started is when the container started running (the first probe is due then).
	Started time.Time

	attempts int       // probes recorded
	begun    time.Time // start of the last probe
	last     time.Time // end of the last probe
	passed   bool      // some probe passed
	failures int       // consecutive counted failures since the last success
	ok       bool      // the verdict: ready by ostset's probes
	passedAt time.Time // start of the current run of readiness
}

// NewProbing starts the record of a container that started running at started.
func NewProbing(c Check, engineRuns bool, started time.Time) *Probing {
	return &Probing{Check: c.Defaults(), EngineRuns: engineRuns, Started: started}
}

// Next is when the next probe is due, and false when no probe is to run any
// more (the engine's own check takes over after the first success).
func (p *Probing) Next() (time.Time, bool) {
	switch {
	case p.passed && p.EngineRuns:
		return time.Time{}, false
	case p.attempts == 0:
		return p.Started, true
	case p.passed:
		return p.last.Add(p.Check.Interval), true
	}
	// Before the first success the gap runs from one probe's start to the
	// next one's (as kubelet's period does), so a probe that is slow to run
	// (a loaded engine's exec) does not stretch the cadence: the next is due
	// as soon as it ends when it took longer than the gap. After it, the
	// interval runs from the end of one to the start of the next, as Docker's.
	return p.begun.Add(StartGap(p.attempts, p.Check.Interval)), true
}

// StartGap is the time from the start of the n-th failed probe (n ≥ 1) of a
// container that has not passed yet to the start of the next: FirstProbeGap doubled n-1 times, at most the
// interval and MaxStartGap.
func StartGap(n int, interval time.Duration) time.Duration {
	most := min(interval, MaxStartGap)
	gap := FirstProbeGap
	for i := 1; i < n && gap < most; i++ {
		gap *= 2
	}
	return min(gap, most)
}

// Passed takes in a success recorded before this record began (by another
// process, or an earlier prober of this one) for this run of the
// container: where the engine runs its healthcheck nothing is left to probe;
// where it runs none, probing goes on from there.
func (p *Probing) Passed(since time.Time) {
	p.passed, p.ok, p.passedAt, p.failures = true, true, since, 0
}

// Record takes in one probe that ran from start to end and passed or not.
// It reports whether the verdict (Ready) changed.
func (p *Probing) Record(passed bool, start, end time.Time) bool {
	p.attempts++
	p.begun, p.last = start, end
	was := p.ok
	switch {
	case passed:
		p.passed, p.failures = true, 0
		if !p.ok {
			p.ok, p.passedAt = true, end
		}
	case p.passed || start.Sub(p.Started) >= p.Check.StartPeriod:
		p.failures++
		if p.failures >= p.Check.Retries {
			p.ok = false
		}
	}
	return p.ok != was
}

// Ready tells whether ostset's probes make the container ready, and since when.
func (p *Probing) Ready() (bool, time.Time) {
	if !p.ok {
		return false, time.Time{}
	}
	return true, p.passedAt
}

// Attempts is how many probes were recorded.
func (p *Probing) Attempts() int { return p.attempts }

// ProbeWanted tells whether a container in Docker state state with engine
// health status h and a healthcheck (hasCheck) is one ostset probes: running,
// with a healthcheck on which the engine has not given a verdict yet.
func ProbeWanted(state, h string, hasCheck bool) bool {
	return state == "running" && h == "starting" && hasCheck
}
