package liveness

import (
	"testing"
	"time"

	"github.com/ostset/ostset/config"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

// probeAt records one probe at its due time, taking d, and returns whether
// the verdict changed.
func probeAt(t *testing.T, p *Probing, want time.Time, passed bool, out string) bool {
	t.Helper()
	next, _, ok := p.Next()
	if !ok || !next.Equal(want) {
		t.Fatalf("next probe at %v (%v), want %v", next.Sub(t0), ok, want.Sub(t0))
	}
	return p.Record(passed, out, next, next.Add(10*time.Millisecond))
}

// Liveness alone: first probe after the initial delay, then every period;
// a success clears the failures; failureThreshold in a row fail it, and
// nothing is probed after.
func TestLivenessFailsAfterThresholdInARow(t *testing.T) {
	live := &Spec{Test: []string{"CMD", "check"}, Period: sec(5), Threshold: 3, InitialDelay: sec(2)}
	p := NewProbing(nil, live, t0, time.Time{})
	if !p.StartupPassed().Equal(t0) {
		t.Errorf("without a startup probe the run counts as started at once")
	}
	probeAt(t, p, t0.Add(sec(2)), false, "x")
	probeAt(t, p, t0.Add(sec(7)), false, "x")
	probeAt(t, p, t0.Add(sec(12)), true, "")
	probeAt(t, p, t0.Add(sec(17)), false, "x")
	probeAt(t, p, t0.Add(sec(22)), false, "x")
	if p.Failed() != "" {
		t.Fatalf("failed after 2 in a row: %q", p.Failed())
	}
	if !probeAt(t, p, t0.Add(sec(27)), false, "GET /health: 500\n") {
		t.Error("the third failure in a row did not change the verdict")
	}
	if got, want := p.Failed(), "Liveness probe failed: GET /health: 500"; got != want {
		t.Errorf("Failed() = %q, want %q", got, want)
	}
	if _, _, ok := p.Next(); ok {
		t.Error("probes go on after the verdict")
	}
}

// Startup first: liveness is not probed until it passes, then a period
// later; the startup probe is not run again.
func TestStartupGatesLiveness(t *testing.T) {
	start := &Spec{Test: []string{"CMD", "started"}, Period: sec(1), Threshold: 10}
	live := &Spec{Test: []string{"CMD", "alive"}, Period: sec(5), Threshold: 1}
	p := NewProbing(start, live, t0, time.Time{})
	for i := range 3 {
		next, s, _ := p.Next()
		if s != start {
			t.Fatalf("probe %d runs %v before startup passed", i, s.Test)
		}
		probeAt(t, p, next, false, "not yet")
	}
	if !p.StartupPassed().IsZero() || p.Failed() != "" {
		t.Fatal("startup passed or failed early")
	}
	if !probeAt(t, p, t0.Add(sec(3)), true, "") {
		t.Error("startup passing did not change the verdict")
	}
	passed := t0.Add(sec(3) + 10*time.Millisecond)
	if !p.StartupPassed().Equal(passed) {
		t.Errorf("StartupPassed = %v", p.StartupPassed())
	}
	next, s, _ := p.Next()
	if s != live || !next.Equal(passed.Add(sec(5))) {
		t.Fatalf("after startup: %v at %v", s.Test, next.Sub(t0))
	}
	probeAt(t, p, next, false, "dead")
	if got := p.Failed(); got != "Liveness probe failed: dead" {
		t.Errorf("Failed() = %q", got)
	}
}

// A startup probe that fails failureThreshold times (periodSeconds apart)
// fails the run; one recorded as passed before is not run again.
func TestStartupFailsAndRecordedPass(t *testing.T) {
	start := &Spec{Test: []string{"CMD", "started"}, Period: sec(2), Threshold: 2}
	p := NewProbing(start, nil, t0, time.Time{})
	probeAt(t, p, t0, false, "")
	probeAt(t, p, t0.Add(sec(2)), false, "")
	if got := p.Failed(); got != "Startup probe failed: no output" {
		t.Errorf("Failed() = %q", got)
	}
	seeded := NewProbing(start, nil, t0, t0.Add(sec(1)))
	if _, _, ok := seeded.Next(); ok {
		t.Error("a startup probe recorded as passed runs again")
	}
}

func TestSpecDefaultsAreKubernetes(t *testing.T) {
	if SpecOf(nil) != nil {
		t.Fatal("SpecOf(nil) is not nil")
	}
	s := SpecOf(&config.Healthcheck{Test: []string{"CMD", "x"}})
	if s.Period != 10*time.Second || s.Timeout != time.Second || s.Threshold != 3 || s.InitialDelay != 0 {
		t.Errorf("defaults %+v, want Kubernetes' (10s, 1s, 3, 0)", s)
	}
}
