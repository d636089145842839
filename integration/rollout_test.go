//go:build integration

package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

func (h *harness) revisions() map[string]string {
	revs := map[string]string{}
	for _, name := range h.replicaNames() {
		revs[name] = h.inspect(name).Config.Labels["io.ostset.revision"]
	}
	return revs
}

func (h *harness) ids() map[string]string {
	ids := map[string]string{}
	for _, name := range h.replicaNames() {
		ids[name] = h.inspect(name).ID
	}
	return ids
}

// allAt fails unless every replica runs rev.
func (h *harness) allAt(rev string) {
	h.t.Helper()
	for name, r := range h.revisions() {
		if r != rev {
			h.t.Errorf("%s at %s, want %s", name, r, rev)
		}
	}
}

// brokenSpec never becomes healthy: the server answers 503 on /healthz.
func brokenSpec(extra string) string {
	return strings.Replace(scaledSpec(3, extra), "  healthcheck:", "  env: {UNHEALTHY: \"1\"}\n  healthcheck:", 1)
}

// undo goes back to the previous revision, which reappears under a new number.
func TestRolloutUndoAndHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	v1 := h.revisions()[h.name(0)]
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV2))
	h.mustOstset("rollout", "undo", h.set, "--wait")
	h.allAt(v1)

	var history []struct {
		Number int
		Name   string
	}
	if err := json.Unmarshal([]byte(h.mustOstset("rollout", "history", h.set, "-o", "json").stdout), &history); err != nil {
		t.Fatal(err)
	}
	if len(history) != 2 || history[1].Name != v1 || history[1].Number != 3 {
		t.Errorf("history after undo %+v: want v1 as revision 3", history)
	}
	if r := h.ostset("rollout", "history", h.set, "--revision", "3"); r.code != 0 || !strings.Contains(r.stdout, imageV1) {
		t.Errorf("history --revision 3 does not show the v1 template: %s", r)
	}
}

// restart replaces every replica with an unchanged template.
func TestRolloutRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	before, rev := h.ids(), h.revisions()[h.name(0)]
	h.mustOstset("rollout", "restart", h.set, "--wait")
	after := h.ids()
	for name, id := range before {
		if after[name] == id {
			t.Errorf("%s not replaced by restart", name)
		}
	}
	if h.revisions()[h.name(0)] == rev {
		t.Error("restart kept the revision name")
	}
	if img := h.docker("inspect", "-f", "{{.Config.Image}}", h.name(0)); img != h.docker("image", "inspect", "-f", "{{.Id}}", imageV1) {
		t.Errorf("restart changed the image to %s", img)
	}
}

// A phased rollout: the partition is lowered step by step; a replica deleted
// on the way comes back at the revision its side of the partition runs.
func TestPhasedRolloutByPartition(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	v1 := h.revisions()[h.name(0)]
	h.mustOstset("up", "-f", h.writeSpec(baseSpec+"updateStrategy:\n  rollingUpdate:\n    partition: 3\n", imageV2))
	h.allAt(v1)

	h.mustOstset("rollout", "partition", h.set, "2", "--wait")
	revs := h.revisions()
	v2 := revs[h.name(2)]
	if v2 == v1 || revs[h.name(1)] != v1 || revs[h.name(0)] != v1 {
		t.Fatalf("partition 2: %v", revs)
	}
	h.docker("rm", "-f", h.name(1), h.name(2))
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if revs := h.revisions(); revs[h.name(1)] != v1 || revs[h.name(2)] != v2 {
		t.Fatalf("recreated mid-rollout: %v; want %s below the partition and %s above", revs, v1, v2)
	}
	r := h.mustOstset("rollout", "status", h.set)
	if !strings.Contains(r.stdout, "partitioned roll out complete: 1 new pods have been updated...") {
		t.Errorf("rollout status at partition 2:\n%s", r)
	}
	h.mustOstset("rollout", "partition", h.set, "0", "--wait")
	h.allAt(v2)
	if r := h.mustOstset("rollout", "status", h.set); !strings.Contains(r.stdout, "statefulset rolling update complete 3 pods at revision "+v2) {
		t.Errorf("rollout status after the rollout:\n%s", r)
	}
}

// A rollout to a release whose healthcheck never passes stalls on the first
// replica; rollout undo heals the set with no manual deletes.
func TestBrokenRolloutUndo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	good := h.revisions()[h.name(0)]
	r := h.ostset("up", "-f", h.writeSpec(brokenSpec(""), imageV1), "--timeout", "6s")
	if r.code != 3 {
		t.Fatalf("up of a broken release: want exit 3, got %s", r)
	}
	if revs := h.revisions(); revs[h.name(2)] == good || revs[h.name(1)] != good {
		t.Fatalf("broken rollout went further than the top replica: %v", revs)
	}
	h.mustOstset("rollout", "undo", h.set, "--wait", "--timeout", "60s")
	h.allAt(good)
	var status struct{ ReadyReplicas int }
	_ = json.Unmarshal([]byte(h.mustOstset("status", h.set, "-o", "json").stdout), &status)
	if status.ReadyReplicas != 3 {
		t.Errorf("ready after undo: %d", status.ReadyReplicas)
	}
}

// With autoRollback, a rollout that misses its progress deadline goes back to
// the last complete revision by itself, and up says so (exit 1).
func TestProgressDeadlineAutoRollback(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	strategy := "updateStrategy:\n  progressDeadlineSeconds: 3\n  autoRollback: true\n"
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, strategy), imageV1))
	good := h.revisions()[h.name(0)]
	r := h.ostset("up", "-f", h.writeSpec(brokenSpec(strategy), imageV1), "--timeout", "90s")
	if r.code != 1 || !strings.Contains(r.stderr, "was rolled back to "+good) {
		t.Fatalf("up of a broken release with autoRollback: want exit 1 and the rollback, got %s", r)
	}
	h.allAt(good)
	if r := h.mustOstset("describe", h.set); !strings.Contains(r.stdout, "rolling back to "+good) {
		t.Errorf("describe does not show the rollback event:\n%s", r)
	}
}

// pause stops replacements but not scaling; resume finishes the rollout.
func TestPauseStopsReplacementNotScaling(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, ""), imageV1))
	v1 := h.revisions()[h.name(0)]
	h.mustOstset("rollout", "pause", h.set)
	if r := h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, ""), imageV2)); !strings.Contains(r.stdout, "the rollout is paused") {
		t.Errorf("up does not say the rollout is paused:\n%s", r)
	}
	revs := h.revisions()
	if revs[h.name(0)] != v1 || revs[h.name(1)] != v1 {
		t.Errorf("paused rollout replaced replicas: %v", revs)
	}
	if revs[h.name(2)] == "" || revs[h.name(2)] == v1 {
		t.Errorf("scale-up while paused: %s at %q, want the new revision", h.name(2), revs[h.name(2)])
	}
	h.mustOstset("rollout", "resume", h.set)
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	h.allAt(revs[h.name(2)])
}
