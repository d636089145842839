//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// started runs ostset in the background with the test's state dir and returns
// the command once a line of its output contains marker (the process is then
// in the middle of what that line reports).
func (h *harness) started(marker string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	h.t.Helper()
	cmd := exec.Command(ostsetBin, args...)
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.Contains(lines.Text(), marker) {
			go func() { // keep draining, so the process never blocks on a full pipe
				for lines.Scan() {
				}
			}()
			return cmd, &stderr
		}
	}
	_ = cmd.Wait()
	h.t.Fatalf("ostset %v ended before printing %q:\n%s\n%s", args, marker, strings.Join(seen, "\n"), stderr.String())
	return nil, nil
}

// Ctrl-C during up exits 130, says where the rollout stopped and how to go on;
// running up again finishes the rollout.
func TestCtrlCDuringUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	v2 := h.writeSpec(baseSpec, imageV2)
	cmd, stderr := h.started(h.name(2)+" created", "up", "-f", v2)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("up interrupted: %v, want exit 130\n%s", err, stderr)
	}
	for _, want := range []string{"interrupted", "replicas at revision " + h.set + "-", "ostset reconcile " + h.set} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	r := h.mustOstset("up", "-f", v2)
	if !strings.Contains(r.stdout, "rollout complete") {
		t.Fatalf("up again:\n%s", r)
	}
	var status struct{ UpdatedReplicas, ReadyReplicas int }
	h.statusJSON(&status)
	if status.UpdatedReplicas != 3 || status.ReadyReplicas != 3 {
		t.Errorf("after resuming: %+v", status)
	}
}

// up after a down killed midway cancels the delete and brings the set back with
// its volumes; until then status shows the pending delete and scale refuses it.
func TestUpAfterKilledDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeSpec(baseSpec, imageV1)
	h.mustOstset("up", "-f", file)
	h.docker("exec", h.name(0), "/web", "write", "/data/note", "kept")
	cmd, _ := h.started(h.name(2)+" removed", "down", h.set, "--volumes")
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	if r := h.mustOstset("status", h.set); !strings.Contains(r.stdout, "is being deleted") {
		t.Errorf("status does not show the pending delete:\n%s", r)
	}
	if r := h.ostset("scale", h.set, "--replicas", "4"); r.code != 2 || !strings.Contains(r.stderr, "is being deleted") {
		t.Errorf("scale of a set being deleted:\n%s", r)
	}
	r := h.mustOstset("up", "-f", file)
	if !strings.Contains(r.stdout, "cancelled the unfinished delete") || !strings.Contains(r.stdout, "rollout complete") {
		t.Fatalf("up after the killed down:\n%s", r)
	}
	if names := h.replicaNames(); !sameSet(names, []string{h.name(0), h.name(1), h.name(2)}) {
		t.Fatalf("replicas after up: %v", names)
	}
	if got := h.docker("exec", h.name(0), "/web", "cat", "/data/note"); got != "kept" {
		t.Errorf("data of %s after the cancelled delete: %q", h.name(0), got)
	}
}

// up keeps a partition set by rollout partition when the file leaves it out, and
// says so: the canary stays a canary.
func TestUpKeepsCommandPartition(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	h.mustOstset("rollout", "partition", h.set, "2")
	r := h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV2))
	if !strings.Contains(r.stdout, "keeping 2 set by 'ostset rollout partition'") {
		t.Errorf("up does not say it keeps the partition:\n%s", r)
	}
	var status struct {
		CurrentRevision, UpdateRevision string
		Containers                      []struct {
			Name, Revision string
		}
	}
	h.statusJSON(&status)
	for _, c := range status.Containers {
		want := status.CurrentRevision
		if c.Name == h.name(2) {
			want = status.UpdateRevision
		}
		if c.Revision != want {
			t.Errorf("%s at %s, want %s (partition 2)", c.Name, c.Revision, want)
		}
	}
}

// Replicas ready for longer than minReadySeconds are available to a new
// process, although Docker's five-probe window has slid past the start.
func TestAvailabilityAcrossProcesses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, "minReadySeconds: 4\n"), imageV1))
	time.Sleep(4 * time.Second) // the scenario: ten more 500 ms probes, beyond Docker's window of five
	var status struct{ ReadyReplicas, AvailableReplicas int }
	h.statusJSON(&status)
	if status.ReadyReplicas != 2 || status.AvailableReplicas != 2 {
		t.Errorf("ready for over 4 s with minReadySeconds 4: %+v", status)
	}
}

// down --volumes removes what an earlier down kept; recreate replaces one replica.
func TestDownVolumesAfterDownAndRecreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec+"updateStrategy: {type: OnDelete}\n", imageV1))
	h.mustOstset("up", "-f", h.writeSpec(baseSpec+"updateStrategy: {type: OnDelete}\n", imageV2))
	old := h.inspect(h.name(1))
	r := h.mustOstset("recreate", h.name(1))
	if !strings.Contains(r.stdout, h.name(1)+" removed (ostset recreate)") {
		t.Errorf("recreate:\n%s", r)
	}
	now := h.inspect(h.name(1))
	if now.ID == old.ID || now.Config.Labels["io.ostset.revision"] == old.Config.Labels["io.ostset.revision"] {
		t.Errorf("%s not recreated at the update revision: %s -> %s", h.name(1), old.Config.Labels["io.ostset.revision"], now.Config.Labels["io.ostset.revision"])
	}
	if h.inspect(h.name(0)).Config.Labels["io.ostset.revision"] != old.Config.Labels["io.ostset.revision"] {
		t.Errorf("%s was replaced too (OnDelete)", h.name(0))
	}

	h.mustOstset("down", h.set)
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 3 {
		t.Fatalf("volumes after down: %v", vols)
	}
	r = h.mustOstset("down", h.set, "--volumes")
	if !strings.Contains(r.stdout, "volume data-"+h.name(0)+" removed") {
		t.Errorf("down --volumes of the deleted set:\n%s", r)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 0 {
		t.Errorf("volumes left: %v", vols)
	}
	if r := h.ostset("down", h.set, "--volumes"); r.code != 2 {
		t.Errorf("down --volumes with nothing left:\n%s", r)
	}
}

// ostset reconcile of a set whose down was killed finishes the delete and says
// so, exit 0: the set is gone, with its replicas and, as down --volumes asked,
// its volumes.
func TestReconcileFinishesKilledDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	cmd, _ := h.started(h.name(2)+" removed", "down", h.set, "--volumes")
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	r := h.mustOstset("reconcile", h.set)
	if !strings.Contains(r.stdout, h.set+": deleted") {
		t.Errorf("reconcile after the killed down:\n%s", r)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("replicas left: %v", names)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 0 {
		t.Errorf("volumes left: %v", vols)
	}
	if r := h.ostset("status", h.set); r.code != 2 {
		t.Errorf("status of the deleted set:\n%s", r)
	}
}
