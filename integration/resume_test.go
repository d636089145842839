//go:build integration

package integration

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// An ostset process killed in the middle of a rollout leaves a state that the
// next one repairs: every ordinal once, all at the update revision.
func TestKilledMidRolloutResumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeSpec(scaledSpec(4, ""), imageV1)
	h.mustOstset("up", "-f", file)
	v2 := h.writeSpec(scaledSpec(4, ""), imageV2)

	cmd := exec.Command(ostsetBin, "up", "-f", v2)
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.HasPrefix(lines.Text(), h.name(2)+" removed") {
			break // between removing the old web-2 and creating the new one
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if h.exists(h.name(2)) && len(seen) > 0 && !strings.HasPrefix(seen[len(seen)-1], h.name(2)+" removed") {
		t.Fatalf("the rollout did not reach %s:\n%s", h.name(2), strings.Join(seen, "\n"))
	}

	h.mustOstset("reconcile", h.set, "--timeout", "90s")
	names := h.replicaNames()
	if !sameSet(names, []string{h.name(0), h.name(1), h.name(2), h.name(3)}) {
		t.Fatalf("replicas after resume: %v", names)
	}
	var status struct {
		CurrentRevision, UpdateRevision string
		UpdatedReplicas, ReadyReplicas  int
	}
	h.statusJSON(&status)
	if status.UpdatedReplicas != 4 || status.ReadyReplicas != 4 || status.CurrentRevision != status.UpdateRevision {
		t.Errorf("after resume: %+v", status)
	}
}
