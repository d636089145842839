package health

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// The first probe is due when the container starts; each failed one before
// the first success is followed by a gap of 100 ms doubling up to the
// healthcheck's interval, at most MaxStartGap.
func TestProbingStartsAtOnceAndBacksOffToTheInterval(t *testing.T) {
	p := NewProbing(Check{Interval: time.Second}, true, t0)
	next, ok := p.Next()
	if !ok || !next.Equal(t0) {
		t.Fatalf("first probe at %v (%v), want at start", next, ok)
	}
	now := t0
	var gaps []time.Duration
	for range 6 {
		p.Record(false, now, now.Add(ms(5)))
		next, ok := p.Next()
		if !ok {
			t.Fatal("probing stopped before a success")
		}
		gaps = append(gaps, next.Sub(now))
		now = next
	}
	want := []time.Duration{ms(100), ms(200), ms(250), ms(250), ms(250), ms(250)}
	for i := range want {
		if gaps[i] != want[i] {
			t.Fatalf("gaps %v, want %v", gaps, want)
		}
	}
	if ready, _ := p.Ready(); ready {
		t.Fatal("ready without a passing probe")
	}
	if g := StartGap(3, 150*time.Millisecond); g != ms(150) {
		t.Errorf("gap %v with a 150ms interval", g)
	}
}

// A probe slower than the gap does not stretch the cadence before the first
// success: the gap runs from one probe's start to the next one's, and a
// probe that outlasts it is followed at once.
func TestProbingGapRunsFromStartToStart(t *testing.T) {
	p := NewProbing(Check{Interval: 10 * time.Second}, true, t0)
	p.Record(false, t0, t0.Add(ms(60)))
	if next, _ := p.Next(); !next.Equal(t0.Add(ms(100))) {
		t.Fatalf("after a 60 ms probe started at 0: next at %v, want 100ms", next.Sub(t0))
	}
	at := t0.Add(ms(100))
	p.Record(false, at, at.Add(ms(400)))
	if next, _ := p.Next(); next.After(at.Add(ms(400))) {
		t.Fatalf("after a 400 ms probe with a 200 ms gap: next at %v, want by its end (500ms)", next.Sub(t0))
	}
}

// Where the engine runs the healthcheck, the first success makes the
// container ready and ends the probing.
func TestProbingEndsAtTheFirstSuccessWhereTheEngineChecks(t *testing.T) {
	p := NewProbing(Check{Interval: 10 * time.Second}, true, t0)
	p.Record(false, t0, t0.Add(ms(3)))
	if changed := p.Record(true, t0.Add(ms(103)), t0.Add(ms(110))); !changed {
		t.Fatal("a first success did not change the verdict")
	}
	ready, since := p.Ready()
	if !ready || !since.Equal(t0.Add(ms(110))) {
		t.Fatalf("ready %v since %v", ready, since)
	}
	if _, ok := p.Next(); ok {
		t.Fatal("a probe is due after the first success")
	}
}

// Where the engine runs none, ostset's probes are the healthcheck: after a
// success they go on at the interval, retries failures in a row make the
// container not ready, a success ready again; failures within the start
// period before any success do not count.
func TestProbingIsTheHealthcheckWhereTheEngineRunsNone(t *testing.T) {
	c := Check{Interval: time.Second, Retries: 2, StartPeriod: 10 * time.Second}
	p := NewProbing(c, false, t0)
	for i := range 5 { // within the start period: not counted, and still due
		at := t0.Add(time.Duration(i) * time.Second)
		p.Record(false, at, at)
	}
	if _, ok := p.Next(); !ok {
		t.Fatal("probing stopped")
	}
	at := t0.Add(5 * time.Second)
	p.Record(true, at, at)
	if next, ok := p.Next(); !ok || next.Sub(at) != time.Second {
		t.Fatalf("next %v (%v), want one interval after the success", next, ok)
	}
	p.Record(false, at.Add(time.Second), at.Add(time.Second))
	if ready, _ := p.Ready(); !ready {
		t.Fatal("one failure of 2 retries made it not ready")
	}
	if changed := p.Record(false, at.Add(2*time.Second), at.Add(2*time.Second)); !changed {
		t.Fatal("the retries-th failure did not change the verdict")
	}
	if ready, _ := p.Ready(); ready {
		t.Fatal("ready after retries failures")
	}
	p.Record(true, at.Add(3*time.Second), at.Add(3*time.Second))
	if ready, since := p.Ready(); !ready || !since.Equal(at.Add(3*time.Second)) {
		t.Fatalf("ready %v since %v after passing again", ready, since)
	}
}

// Failures after the start period count even before the first success.
func TestProbingCountsFailuresAfterTheStartPeriod(t *testing.T) {
	p := NewProbing(Check{Interval: time.Second, Retries: 1}, false, t0)
	p.Record(true, t0, t0)
	p.Record(false, t0.Add(time.Second), t0.Add(time.Second))
	if ready, _ := p.Ready(); ready {
		t.Fatal("ready after 1 failure with retries 1")
	}
}

func TestCheckDefaultsAreDockers(t *testing.T) {
	c := Check{}.Defaults()
	if c.Interval != 30*time.Second || c.Timeout != 30*time.Second || c.Retries != 3 {
		t.Fatalf("%+v", c)
	}
}

// A replica is probed while running with a healthcheck the engine has not
// judged yet; never without one, nor once the engine has its verdict.
func TestProbeWanted(t *testing.T) {
	for _, tc := range []struct {
		state, health string
		check, want   bool
	}{
		{"running", "starting", true, true},
		{"running", "starting", false, false},
		{"running", "healthy", true, false},
		{"running", "unhealthy", true, false},
		{"running", "", true, false},
		{"exited", "starting", true, false},
	} {
		if got := ProbeWanted(tc.state, tc.health, tc.check); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
}

// Starting is ready only with ostset's probe passed; the probe never makes
// a stopped or unhealthy container ready.
func TestReadyWithProbe(t *testing.T) {
	for _, tc := range []struct {
		c    Container
		want bool
	}{
		{Container{State: "running", Health: "starting"}, false},
		{Container{State: "running", Health: "starting", Probed: true}, true},
		{Container{State: "running", Health: "unhealthy", Probed: true}, false},
		{Container{State: "exited", Health: "starting", Probed: true}, false},
	} {
		if got := Ready(tc.c); got != tc.want {
			t.Errorf("%+v: %v", tc.c, got)
		}
	}
}
