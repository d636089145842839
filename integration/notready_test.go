//go:build integration

package integration

import (
	"strings"
	"testing"
	"time"
)

const notReadySpec = `
name: {{SET}}
replicas: 1
network: {{NET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  env: {ENV}
  restartPolicy: always
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 1s
    retries: 1
`

type notReadyStatus struct {
	Containers []struct {
		Name     string
		Reason   string
		NotReady *struct {
			ExitCode     int
			Restarts     int
			HealthOutput string
			Logs         []string
		}
	}
}

// awaitReason polls the status until the replica's reason contains want.
func (h *harness) awaitReason(want string) notReadyStatus {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var s notReadyStatus
		h.statusJSON(&s)
		if len(s.Containers) == 1 && strings.Contains(s.Containers[0].Reason, want) {
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the reason never said %q: %+v", want, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// An unhealthy replica says why: the output of its failing healthcheck, in the
// waiting messages, get -o wide, status and describe, with its last log lines.
func TestNotReadyUnhealthySaysWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(notReadySpec, imageV1, "{ENV}", `{UNHEALTHY: "1"}`)
	// The wait's budget covers the create, the start and the first failed
	// healthcheck, which take seconds on a loaded machine.
	r := h.ostset("up", "-f", spec, "--timeout", "15s")
	const output = `"web: health: 503 Service Unavailable"`
	if r.code != 3 || !strings.Contains(r.stdout, h.name(0)+" not ready (health: unhealthy: "+output+")") ||
		!strings.Contains(r.stderr, "waiting for "+h.name(0)+" not ready (health: unhealthy: "+output+")") {
		t.Errorf("up does not say why %s is not ready:\n%s", h.name(0), r)
	}
	s := h.awaitReason("health: " + output)
	d := s.Containers[0].NotReady
	if d == nil || d.HealthOutput != "web: health: 503 Service Unavailable" || !anyContains(d.Logs, "listening on :8080") {
		t.Errorf("status detail %+v", d)
	}
	wide := h.mustOstset("get", h.set, "-o", "wide").stdout
	if !strings.Contains(wide, "REASON") || !strings.Contains(wide, "health: "+output) {
		t.Errorf("get -o wide:\n%s", wide)
	}
	desc := h.mustOstset("describe", h.set).stdout
	for _, want := range []string{h.name(0) + " not ready: health: " + output, "last healthcheck:\n      web: health: 503 Service Unavailable\n", "last log lines:\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe lacks %q:\n%s", want, desc)
		}
	}
}

// A replica that Docker keeps restarting says its exit code and restarts.
func TestNotReadyCrashLoopSaysWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// It exits before it listens: ostset probes at once, and a replica that
	// answers its healthcheck before each crash is ready for that moment.
	spec := h.writeSpec(notReadySpec, imageV1, "{ENV}", `{EXIT_AFTER: "200ms", START_DELAY: "1s"}`)
	if r := h.ostset("up", "-f", spec, "--timeout", "3s"); r.code != 3 {
		t.Fatalf("up of a crashing replica: %s", r)
	}
	s := h.awaitReason("exit 3, ")
	d := s.Containers[0].NotReady
	if d == nil || d.Restarts < 1 || d.ExitCode != 3 || !anyContains(d.Logs, "exiting with code 3") {
		t.Errorf("status detail %+v", d)
	}
	if !strings.Contains(s.Containers[0].Reason, "restart") {
		t.Errorf("reason %q does not count the restarts", s.Containers[0].Reason)
	}
}

func anyContains(lines []string, part string) bool {
	for _, l := range lines {
		if strings.Contains(l, part) {
			return true
		}
	}
	return false
}
