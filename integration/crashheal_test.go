//go:build integration

package integration

import (
	"strings"
	"testing"
	"time"
)

// The daemon answers a replica's exit when Docker reports it, not at the
// resync (10 minutes away here, beyond the test's deadline): a docker stop of
// an unless-stopped replica, and a kill of a restartPolicy "no" replica, whose
// die event comes before Docker's container list shows the exit. A second
// quick exit of the same replica is held back by the crash-loop back-off, which
// get shows.
func TestCfDaemonHealsCrashesWithoutTheResync(t *testing.T) {
	t.Parallel()
	h := newHarnessPrefix(t, "cf")
	h.startDaemon(nil, "--resync", "10m")
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(2), imageV1), "--wait=false")
	h.awaitReady(2)

	old := h.inspect(h.name(1)).ID
	h.docker("stop", "-t", "1", h.name(1)) // unless-stopped: Docker leaves it exited
	h.awaitReplaced(h.name(1), old)

	never := strings.Replace(daemonSpec(2), "  image: {{IMAGE}}\n", "  image: {{IMAGE}}\n  restartPolicy: \"no\"\n", 1)
	h.mustOstset("up", "-f", h.writeSpec(never, imageV1), "--wait=false") // a rolling update: web-1, then web-0
	h.awaitReady(2)
	h.awaitPolicy(h.name(0), "no")
	old = h.inspect(h.name(0)).ID
	h.docker("kill", h.name(0)) // exits 137; Docker does not restart it
	h.awaitReplaced(h.name(0), old)

	// A second exit soon after: recreated only after the back-off (10 s).
	old = h.inspect(h.name(0)).ID
	h.docker("kill", h.name(0))
	deadline := time.Now().Add(time.Minute)
	for {
		r := h.ostset("get", h.set)
		if strings.Contains(r.stdout, "CrashLoopBackOff") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get never showed %s in CrashLoopBackOff:\n%s", h.name(0), r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.awaitReplaced(h.name(0), old)
}

// awaitReplaced waits until the container name is a running container other
// than old. Three minutes: far more than a create takes on a loaded machine,
// far less than the daemon's resync in these tests.
func (h *harness) awaitReplaced(name, old string) {
	h.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if got, err := h.tryDocker("inspect", "-f", "{{.Id}} {{.State.Status}}", name); err == nil {
			if id, state, _ := strings.Cut(got, " "); id != old && state == "running" {
				return
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s not replaced within 3 minutes", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitPolicy waits until the container name runs with the restart policy.
func (h *harness) awaitPolicy(name, policy string) {
	h.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if got, err := h.tryDocker("inspect", "-f", "{{.HostConfig.RestartPolicy.Name}} {{.State.Status}}", name); err == nil && got == policy+" running" {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s does not run with restart policy %s within 3 minutes", name, policy)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
