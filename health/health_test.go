package health

import (
	"testing"
	"time"
)

func TestReady(t *testing.T) {
	cases := []struct {
		state, health string
		want          bool
	}{
		{"running", "", true},
		{"running", "healthy", true},
		{"running", "starting", false},
		{"running", "unhealthy", false},
		{"restarting", "", false},
		{"exited", "healthy", false},
		{"paused", "", false},
		{"created", "", false},
	}
	for _, c := range cases {
		if got := Ready(Container{State: c.state, Health: c.health}); got != c.want {
			t.Errorf("Ready(%s, %q) = %v, want %v", c.state, c.health, got, c.want)
		}
	}
}

func TestAvailable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	ready := Container{State: "running", ReadySince: now.Add(-5 * time.Second)}
	if !Available(ready, 0, now) {
		t.Error("minReady 0: ready must be available")
	}
	if !Available(ready, 5*time.Second, now) {
		t.Error("ready for exactly minReady must be available")
	}
	if Available(ready, 6*time.Second, now) {
		t.Error("ready for less than minReady must not be available")
	}
	if Available(Container{State: "running"}, time.Second, now) {
		t.Error("unknown ReadySince with minReady > 0 must not be available")
	}
	if Available(Container{State: "exited", ReadySince: now.Add(-time.Hour)}, time.Second, now) {
		t.Error("not ready must not be available")
	}
}

func TestFailed(t *testing.T) {
	for state, want := range map[string]bool{"exited": true, "dead": true, "running": false, "restarting": false, "created": false, "paused": false} {
		if got := Failed(Container{State: state}); got != want {
			t.Errorf("Failed(%s) = %v, want %v", state, got, want)
		}
	}
}

// A container whose startup probe has not passed is not ready, whatever
// Docker's health says (Kubernetes counts no readiness before startup).
func TestUnstartedIsNotReady(t *testing.T) {
	for _, h := range []string{"", "healthy", "starting"} {
		if Ready(Container{State: "running", Health: h, Probed: true, Unstarted: true}) {
			t.Errorf("unstarted, health %q: ready", h)
		}
	}
}
