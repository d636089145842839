//go:build integration

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// ostset daemon converges a set applied without waiting and heals a replica
// removed behind its back, reacting to Docker events.
func TestDaemonConvergesAndHeals(t *testing.T) {
	h := newHarness(t)
	daemon := exec.Command(ostsetBin, "daemon")
	daemon.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	var out bytes.Buffer
	daemon.Stdout, daemon.Stderr = &out, &out
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = daemon.Process.Signal(syscall.SIGTERM)
			_ = daemon.Wait()
		}
	}
	defer stop()

	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, ""), imageV1), "--wait=false")
	h.awaitReady(2)
	old := h.inspect(h.name(1)).ID
	h.docker("rm", "-f", h.name(1))
	h.awaitReady(2)
	if h.inspect(h.name(1)).ID == old {
		t.Errorf("%s was not recreated", h.name(1))
	}
	stop()
	if daemon.ProcessState.ExitCode() != 0 {
		t.Errorf("daemon exit %d on SIGTERM:\n%s", daemon.ProcessState.ExitCode(), out.String())
	}
}

// awaitReady polls the set's status until n replicas are ready.
func (h *harness) awaitReady(n int) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var s struct{ ReadyReplicas int }
		h.statusJSON(&s)
		if s.ReadyReplicas == n {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%d replicas ready, want %d", s.ReadyReplicas, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
