//go:build integration

package integration

import (
	"strings"
	"testing"
)

// proberSpec is an OrderedReady set of 3 whose app answers its healthcheck
// 2 s after it starts ({ENV}), with Docker's healthcheck every 10 s: Docker's
// first check of each replica runs 10 s after its start.
const proberSpec = `
name: {{SET}}
replicas: 3
network: {{NET}}
podManagementPolicy: OrderedReady
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  env: {ENV}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 10s
    timeout: 2s
    retries: 3
`

type proberStatus struct {
	ReadyReplicas int
	Containers    []struct {
		Name, Health, ReadyBy string
		Ready                 bool
	}
}

// By default, an ordered rollout goes on as soon as each replica's own
// healthcheck passes when ostset runs it, not when Docker first runs it one interval
// after the start: each replica is started before Docker's own check of the
// one before it has passed, in order, and the status says the readiness of
// those Docker still calls starting came from ostset's probe.
func TestProberOrderedReadyAheadOfDockersHealthcheck(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(proberSpec, imageV1, "{ENV}", "{START_DELAY: 2s}")
	stop := h.recordEvents()
	h.mustOstset("up", "-f", spec)
	var s proberStatus
	h.statusJSON(&s)
	evs := stop()
	if s.ReadyReplicas != 3 {
		t.Fatalf("status %+v, want 3 ready", s)
	}
	for i := range 2 {
		before(t, evs, event{"start", h.name(i)}, event{"start", h.name(i + 1)})
		if j := indexOf(evs, "health_status: healthy", h.name(i)); j >= 0 && j < indexOf(evs, "start", h.name(i+1)) {
			t.Errorf("%s started only after Docker's own check of %s passed: %v", h.name(i+1), h.name(i), evs)
		}
	}
	probed := 0
	for _, c := range s.Containers {
		switch {
		case !c.Ready:
			t.Errorf("%s not ready: %+v", c.Name, c)
		case c.Health == "starting" && c.ReadyBy != "probe":
			t.Errorf("%s ready while Docker says starting, readyBy %q", c.Name, c.ReadyBy)
		case c.ReadyBy == "probe":
			probed++
		}
	}
	if probed == 0 {
		t.Errorf("no replica's readiness came from ostset's probe: %+v", s.Containers)
	}
	if probed > 0 {
		for _, cmd := range []string{"get", "describe"} {
			if out := h.mustOstset(cmd, h.set).stdout; !strings.Contains(out, "starting (probe passed)") {
				t.Errorf("%s does not say where readiness came from:\n%s", cmd, out)
			}
		}
	}
}

// A replica whose healthcheck never passes is never ready, whoever runs the
// check, and the next ordinal is not created.
func TestProberNeverPassingHealthcheckHoldsTheRollout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(proberSpec, imageV1, "{ENV}", "{UNHEALTHY: \"1\"}")
	r := h.ostset("up", "-f", spec, "--timeout", "4s")
	if r.code != 3 {
		t.Fatalf("up: %s, want exit 3 (timeout)", r)
	}
	var s proberStatus
	h.statusJSON(&s)
	if s.ReadyReplicas != 0 || len(s.Containers) != 1 || s.Containers[0].ReadyBy != "" {
		t.Fatalf("status %+v, want %s alone and not ready", s, h.name(0))
	}
	if h.exists(h.name(1)) {
		t.Fatalf("%s was created while %s never passed its healthcheck", h.name(1), h.name(0))
	}
}

// With probe-starting off, Docker's own healthcheck alone makes a starting
// replica ready on Docker: the next ordinal starts only after Docker reported
// the one before healthy, and no readiness comes from ostset's probe.
func TestProberOffWaitsForDockersHealthcheck(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env = append(h.env, "OSTSET_PROBE_STARTING=false")
	spec := h.writeSpec(strings.Replace(proberSpec, "replicas: 3", "replicas: 2", 1), imageV1, "{ENV}", "{START_DELAY: 1s}")
	stop := h.recordEvents()
	h.mustOstset("up", "-f", spec)
	var s proberStatus
	h.statusJSON(&s)
	evs := stop()
	before(t, evs, event{"health_status: healthy", h.name(0)}, event{"start", h.name(1)})
	for _, c := range s.Containers {
		if c.ReadyBy != "" {
			t.Errorf("%s ready by %q with probe-starting off", c.Name, c.ReadyBy)
		}
	}
}
