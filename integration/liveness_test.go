//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// livenessSpec is an OrderedReady set of 2 whose /healthz fails while the
// file /run/unhealthy exists (DATA_DIR on a tmpfs, which a restart empties),
// with a liveness probe on it and its claim on /data. It has no readiness
// healthcheck: running is ready, so only the liveness probe acts. The
// probe's timeout is far above its time, so that only the app's answer, not a
// slow exec on a loaded machine, restarts a replica.
const livenessSpec = `
name: {{SET}}
replicas: 2
network: {{NET}}
podManagementPolicy: OrderedReady
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  env: {DATA_DIR: /run}
  tmpfs: [/run]
  healthcheck:
    test: ["NONE"]
  liveness:
    test: ["CMD", "/web", "health"]
    interval: 1s
    timeout: 10s
    retries: 2
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

type livenessStatus struct {
	ReadyReplicas int
	Containers    []struct {
		Name, ID, State, Reason string
		Ready                   bool
		Restarts                int
	}
}

// awaitStatus polls the set's status until ok says it is what the test waits for.
func (h *harness) awaitStatus(what string, ok func(livenessStatus) bool) livenessStatus {
	h.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var s livenessStatus
		if r := h.ostset("status", h.set, "-o", "json"); r.code == 0 { // the set may not be stored yet
			if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
				h.t.Fatalf("status: %v\n%s", err, r.stdout)
			}
			if ok(s) {
				return s
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("status never showed %s: %+v", what, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A replica whose liveness probe starts failing is restarted in place by the
// daemon: the same container (ID and name), its volume's data kept, counted
// once in RESTARTS and said in the set's events; the healthy replica is left
// alone.
func TestLivenessRestartsTheFailingReplicaInPlace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startDaemon(nil)
	h.mustOstset("up", "-f", h.writeSpec(livenessSpec, imageV1))
	h.docker("exec", h.name(1), "/web", "write", "/data/keep", "kept across the restart")
	id0, id1 := h.inspect(h.name(0)).ID, h.inspect(h.name(1)).ID
	stop := h.recordEvents()
	h.docker("exec", h.name(1), "/web", "touch", "/run/unhealthy")
	s := h.awaitStatus(h.name(1)+" restarted and ready", func(s livenessStatus) bool {
		return len(s.Containers) == 2 && s.Containers[1].Restarts > 0 && s.Containers[1].Ready
	})
	evs := stop()
	if c := s.Containers[1]; c.Restarts != 1 || !strings.HasPrefix(id1, c.ID) {
		t.Errorf("%s: %+v, want the same container (%.12s) restarted once", h.name(1), c, id1)
	}
	if c := s.Containers[0]; c.Restarts != 0 || !strings.HasPrefix(id0, c.ID) {
		t.Errorf("%s: %+v, want it left alone", h.name(0), c)
	}
	if got := h.docker("exec", h.name(1), "/web", "cat", "/data/keep"); got != "kept across the restart" {
		t.Errorf("the volume's data after the restart: %q", got)
	}
	if d := indexOf(evs, "die", h.name(1)); d < 0 || indexOf(evs[d:], "start", h.name(1)) < 0 {
		t.Errorf("Docker saw no stop and start of %s: %v", h.name(1), evs)
	}
	for _, a := range []string{"kill", "die", "start", "destroy", "create"} {
		if indexOf(evs, a, h.name(0)) >= 0 {
			t.Errorf("%s: %s: the healthy replica was touched: %v", h.name(0), a, evs)
		}
	}
	if indexOf(evs, "destroy", h.name(1)) >= 0 || indexOf(evs, "create", h.name(1)) >= 0 {
		t.Errorf("%s was replaced, not restarted in place: %v", h.name(1), evs)
	}
	out := h.mustOstset("events", h.set).stdout
	if !strings.Contains(out, h.name(1)+": Liveness probe failed: ") || !strings.Contains(out, ", restarting") {
		t.Errorf("events do not say why %s restarted:\n%s", h.name(1), out)
	}
	if out := h.mustOstset("describe", h.set).stdout; !strings.Contains(out, "Liveness probe failed") {
		t.Errorf("describe does not say why %s restarted:\n%s", h.name(1), out)
	}
}

// startupSpec is an OrderedReady set of 2 whose startup probe passes only
// once the file /run/started exists in the replica. Without a readiness
// healthcheck, running would be ready at once.
const startupSpec = `
name: {{SET}}
replicas: 2
network: {{NET}}
podManagementPolicy: OrderedReady
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  tmpfs: [/run]
  healthcheck:
    test: ["NONE"]
  startup:
    test: ["CMD", "/web", "cat", "/run/started"]
    interval: 500ms
    timeout: 2s
    retries: 600
`

// A replica whose startup probe has not passed is not ready, though it runs
// and has no healthcheck, and an OrderedReady rollout waits for it: the next
// ordinal is created only after the probe passes.
func TestStartupProbeHoldsReadinessAndOrderedReady(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(startupSpec, imageV1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	up := exec.CommandContext(ctx, ostsetBin, "up", "-f", spec)
	up.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	var out bytes.Buffer
	up.Stdout, up.Stderr = &out, &out
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- up.Wait() }()

	s := h.awaitStatus(h.name(0)+" running", func(s livenessStatus) bool {
		return len(s.Containers) == 1 && s.Containers[0].State == "running"
	})
	if c := s.Containers[0]; c.Ready || !strings.Contains(c.Reason, "startup probe") {
		t.Errorf("%s before its startup probe passed: %+v, want not ready, saying why", h.name(0), c)
	}
	if h.exists(h.name(1)) {
		t.Fatalf("%s created before %s's startup probe passed", h.name(1), h.name(0))
	}
	touched := time.Now()
	h.docker("exec", h.name(0), "/web", "touch", "/run/started")
	h.awaitStatus(h.name(1)+" running", func(s livenessStatus) bool {
		return len(s.Containers) == 2 && s.Containers[1].State == "running"
	})
	created, err := time.Parse(time.RFC3339Nano, h.docker("inspect", "-f", "{{.Created}}", h.name(1)))
	if err != nil || created.Before(touched) {
		t.Errorf("%s created at %v, before %s's startup probe could pass (%v)", h.name(1), created, h.name(0), touched)
	}
	h.docker("exec", h.name(1), "/web", "touch", "/run/started")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("up: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatalf("up did not finish:\n%s", out.String())
	}
	var final livenessStatus
	h.statusJSON(&final)
	if final.ReadyReplicas != 2 {
		t.Errorf("after both startup probes passed: %+v", final)
	}
}
