package plan

import (
	"strings"
	"testing"
	"time"
)

func why(r Replica, d NotReadyDetail) Replica {
	r.NotReady = &d
	return r
}

func TestNotReadyReason(t *testing.T) {
	long := strings.Repeat("x", 120)
	tests := []struct {
		name         string
		r            Replica
		reason, wait string
	}{
		{"no detail", rep(0, "a", StateRestarting, HealthNone), "", "restarting"},
		{"crash loop", why(rep(0, "a", StateRestarting, HealthNone), NotReadyDetail{ExitCode: 1, Restarts: 3}),
			"exit 1, 3 restarts", "restarting: exit 1, 3 restarts"},
		{"one restart, OOM", why(rep(0, "a", StateRestarting, HealthNone), NotReadyDetail{ExitCode: 137, OOMKilled: true, Restarts: 1}),
			"exit 137 (OOM killed), 1 restart", "restarting: exit 137 (OOM killed), 1 restart"},
		{"unhealthy", why(rep(0, "a", StateRunning, HealthUnhealthy), NotReadyDetail{HealthOutput: "pg_isready\n127.0.0.1:5432 - no response\n"}),
			`health: "127.0.0.1:5432 - no response"`, `health: unhealthy: "127.0.0.1:5432 - no response"`},
		{"starting, restarted before", why(rep(0, "a", StateRunning, HealthStarting), NotReadyDetail{Restarts: 2, HealthOutput: "connection refused"}),
			`2 restarts, health: "connection refused"`, `health: starting: 2 restarts, "connection refused"`},
		{"running: the exit code is not news", why(rep(0, "a", StateRunning, HealthStarting), NotReadyDetail{ExitCode: 0}), "", "health: starting"},
		{"engine error", why(rep(0, "a", StateExited, HealthNone), NotReadyDetail{ExitCode: 127, Error: `exec: "/nope": no such file or directory`}),
			`error: "exec: \"/nope\": no such file or directory", exit 127`, `exited: error: "exec: \"/nope\": no such file or directory", exit 127`},
		{"long output", why(rep(0, "a", StateRunning, HealthUnhealthy), NotReadyDetail{HealthOutput: long}),
			`health: "` + strings.Repeat("x", 99) + `…"`, `health: unhealthy: "` + strings.Repeat("x", 99) + `…"`},
	}
	for _, tt := range tests {
		if got := tt.r.Reason(); got != tt.reason {
			t.Errorf("%s: Reason() = %s, want %s", tt.name, got, tt.reason)
		}
		if got := describeState(tt.r); got != tt.wait {
			t.Errorf("%s: describeState = %s, want %s", tt.name, got, tt.wait)
		}
	}
}

// What the runtime saw flows into the waiting messages and the status, for
// replicas that are not ready only.
func TestPlanSaysWhyNotReady(t *testing.T) {
	set := testSet()
	obs := Observed{Replicas: []Replica{ok(0, "b"),
		why(rep(1, "b", StateRestarting, HealthNone), NotReadyDetail{ExitCode: 1, Restarts: 3, Logs: []string{"FATAL: no config"}}),
		why(ok(2, "b"), NotReadyDetail{Restarts: 9})}}
	pl := MakePlan(Input{Set: set, CurrentRevision: "b", UpdateRevision: "b", Observed: obs, Now: t0})
	if got, want := pl.String(), "wait web-1 not ready (restarting: exit 1, 3 restarts)\n"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
	c := pl.Status.Containers
	if c[1].Reason != "exit 1, 3 restarts" || c[1].NotReady == nil || c[1].NotReady.Logs[0] != "FATAL: no config" {
		t.Errorf("status of web-1: %+v", c[1])
	}
	if c[0].Reason != "" || c[0].NotReady != nil || c[2].Reason != "" || c[2].NotReady != nil {
		t.Errorf("ready replicas carry a reason: %+v %+v", c[0], c[2])
	}

	exited := why(rep(1, "b", StateExited, HealthNone), NotReadyDetail{ExitCode: 2})
	obs.Replicas[1] = exited
	pl = MakePlan(Input{Set: set, CurrentRevision: "b", UpdateRevision: "b", Observed: obs, Now: t0})
	if got, want := pl.String(), "delete web-1: exited (exit 2); it will be recreated\n"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
	pl = MakePlan(Input{Set: set, CurrentRevision: "b", UpdateRevision: "b", Observed: obs, Now: t0,
		Backoff: map[int]Backoff{1: {After: t0.Add(10 * time.Second)}}})
	if got, want := pl.String(), "wait web-1 exited again (exit 2); recreating it in 10s (crash-loop back-off)\n"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
}
