//go:build integration

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// readyEvent is the event recordEvents adds when a replica becomes ready by
// ostset's definition (docs/set-file.md, Readiness): its healthcheck test
// passed for the first time since it started. That is the exit 0 of an exec
// of the test while Docker still says starting, whoever ran it (ostset's
// prober or Docker's first check), or Docker's "health_status: healthy". A
// test that orders "ready" before the next step fails if ostset moved on
// before the replica's healthcheck had passed once.
const readyEvent = "ready"

// healthTest is the command of the test images' healthcheck, as Docker's
// exec events name it ("exec_start: /web health").
const healthTest = "/web health"

// readiness follows containers' readiness through Docker's events: starts,
// the execs of their healthcheck test and their exits, health_status. A key
// is what names a container (its name, or its ID).
type readiness struct {
	test  string            // the healthcheck's command
	execs map[string]string // exec ID → key, for execs of the test
	state map[string]*readyState
}

type readyState struct {
	running bool // started and not since killed, stopped, dead or destroyed
	judged  bool // Docker reported a health status since the start
	ready   bool
}

func newReadiness(test string) *readiness {
	return &readiness{test: test, execs: map[string]string{}, state: map[string]*readyState{}}
}

// observe takes in one event of the container key (execID and exitCode are
// the event's attributes, empty when it has none) and says whether the
// container became ready with it.
func (r *readiness) observe(action, key, execID, exitCode string) bool {
	s := r.state[key]
	if s == nil {
		s = &readyState{}
		r.state[key] = s
	}
	switch {
	case action == "start":
		*s = readyState{running: true}
	case action == "kill" || action == "die" || action == "stop" || action == "destroy":
		s.running, s.ready = false, false
	case action == "health_status: healthy":
		s.judged = true
		if !s.ready {
			s.ready = true
			return true
		}
	case strings.HasPrefix(action, "health_status"):
		s.judged, s.ready = true, false
	case action == "exec_start: "+r.test:
		r.execs[execID] = key
	case action == "exec_die":
		k, ok := r.execs[execID]
		delete(r.execs, execID)
		if ok && k == key && exitCode == "0" && s.running && !s.judged && !s.ready {
			s.ready = true
			return true
		}
	}
	return false
}

// replicaStatus is one replica in `ostset status SET -o json`.
type replicaStatus struct {
	Name, State, Health, ReadyBy string
	Ready                        bool
}

// notReadyReason says why ostset's status does not show the replica name
// running and ready, with its readiness from Docker's health status
// (healthy) or, while Docker still says starting, from ostset's probe; ""
// when it does.
func (h *harness) notReadyReason(name string) string {
	h.t.Helper()
	var s struct{ Containers []replicaStatus }
	h.statusJSON(&s)
	for _, c := range s.Containers {
		if c.Name != name {
			continue
		}
		if c.State == "running" && c.Ready && (c.Health == "healthy" || c.Health == "starting" && c.ReadyBy == "probe") {
			return ""
		}
		return fmt.Sprintf("%s: %+v", name, c)
	}
	return fmt.Sprintf("%s: not in the status %+v", name, s.Containers)
}

// The readiness read from events: the first passing run of the healthcheck
// test after a start, while Docker says starting, or Docker's healthy; not a
// passing run of another command, nor of a container not seen to start, nor
// one after Docker's own verdict, nor one after a kill.
func TestReadinessFromEvents(t *testing.T) {
	t.Parallel()
	type ev struct{ action, key, exec, code string }
	start, hc := func(k string) ev { return ev{"start", k, "", ""} }, func(k, x string) ev { return ev{"exec_start: " + healthTest, k, x, ""} }
	die := func(k, x, code string) ev { return ev{"exec_die", k, x, code} }
	for _, c := range []struct {
		name  string
		evs   []ev
		ready int // index of the event that makes "a" ready, -1 for none
	}{
		{"a passing probe", []ev{start("a"), hc("a", "1"), die("a", "1", "1"), hc("a", "2"), die("a", "2", "0")}, 4},
		{"another command", []ev{start("a"), {"exec_start: /web write x", "a", "1", ""}, die("a", "1", "0")}, -1},
		{"not seen to start", []ev{hc("a", "1"), die("a", "1", "0")}, -1},
		{"Docker's healthy", []ev{start("a"), {"health_status: healthy", "a", "", ""}}, 1},
		{"after unhealthy", []ev{start("a"), {"health_status: unhealthy", "a", "", ""}, hc("a", "1"), die("a", "1", "0")}, -1},
		{"killed", []ev{start("a"), hc("a", "1"), {"kill", "a", "", ""}, die("a", "1", "0")}, -1},
		{"another container's exec", []ev{start("a"), hc("b", "1"), die("a", "1", "0")}, -1},
	} {
		r := newReadiness(healthTest)
		got := -1
		for i, e := range c.evs {
			if r.observe(e.action, e.key, e.exec, e.code) && got < 0 {
				got = i
			}
		}
		if got != c.ready {
			t.Errorf("%s: ready at event %d, want %d", c.name, got, c.ready)
		}
	}
}
