//go:build integration

package integration

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newWaitHarness is newHarness with sets named wf…, for the tests of waits.
func newWaitHarness(t *testing.T) *harness {
	h := newHarness(t)
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	h.set = "wf" + hex.EncodeToString(b)
	h.network = h.set + "-net"
	return h
}

// A missed progress deadline fails that command only. The next command starts
// a new wait: a scale on a rollout still stuck gets a whole deadline of its own
// (it failed in under a second on the old timer), and once the cause is fixed
// outside the template, recreate's wait completes (it failed at once with the
// earlier deadline).
func TestWaitAfterAMissedDeadlineStartsAnew(t *testing.T) {
	t.Parallel()
	h := newWaitHarness(t)
	strategy := "updateStrategy:\n  progressDeadlineSeconds: 8\n"
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, strategy), imageV1))
	// The cause, outside the template: the server fails its healthcheck while
	// its volume holds the file "unhealthy".
	h.docker("exec", h.name(1), "/web", "touch", "/data/unhealthy")
	r := h.ostset("up", "-f", h.writeSpec(scaledSpec(2, strategy), imageV2))
	if r.code != 1 || !strings.Contains(r.stderr, "made no progress for 8s") {
		t.Fatalf("up of a release that cannot become ready: want exit 1 on the deadline, got %s", r)
	}

	began := time.Now()
	r = h.ostset("scale", h.set, "--replicas", "3")
	took := time.Since(began)
	if r.code != 1 || !strings.Contains(r.stderr, "made no progress for 8s") {
		t.Fatalf("scale of the stuck rollout: want exit 1 on the deadline, got %s", r)
	}
	if took < 8*time.Second {
		t.Errorf("scale failed after %s, before a deadline of its own had passed:\n%s", took.Round(100*time.Millisecond), r)
	}

	h.docker("exec", h.name(1), "/web", "rm", "/data/unhealthy") // the cause fixed
	r = h.ostset("recreate", h.name(1), "--timeout", "90s")
	if r.code != 0 || !strings.Contains(r.stdout, h.set+": rollout complete") {
		t.Fatalf("recreate after the fix: want exit 0 and the rollout complete, got %s", r)
	}
	if names := h.replicaNames(); len(names) != 3 {
		t.Errorf("replicas %v, want 3", names)
	}
}

// up -f A, then up -f B before A's rollout completes: A's command says that B
// superseded its revision, naming B's command, and exits 1; B's completes.
// The same when both follow a daemon.
func TestUpSupersededByAnotherUp(t *testing.T) {
	t.Parallel()
	for _, daemon := range []bool{false, true} {
		t.Run(map[bool]string{false: "driving", true: "following"}[daemon], func(t *testing.T) {
			h := newWaitHarness(t)
			slow := "minReadySeconds: 3\n" // each replica of A takes 3 s at least
			h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, slow), imageV1))
			if daemon {
				h.startDaemon(nil)
			}
			a := h.writeSpec(scaledSpec(3, slow), imageV2)
			cmd, stderr := h.started(h.name(2)+" created", "up", "-f", a)
			b := filepath.Join(h.dir, "b.yaml") // A's file is read: B's may take its place
			if err := os.Rename(h.writeSpec(scaledSpec(3, ""), imageV1), b); err != nil {
				t.Fatal(err)
			}
			rb := h.ostset("up", "-f", b, "--timeout", "90s")
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if rb.code != 0 {
				t.Fatalf("up -f B: %s", rb)
			}
			if code != 1 || !strings.Contains(stderr.String(), "was superseded by revision") ||
				!strings.Contains(stderr.String(), `"ostset up -f `+b+`", pid `) {
				t.Fatalf("up -f A: exit %d (%v), want 1 and the revision superseded by up -f %s; stderr:\n%s", code, err, b, stderr.String())
			}
			t.Logf("up -f A: %s", strings.TrimSpace(stderr.String()))
		})
	}
}
