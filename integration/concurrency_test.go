//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Two commands that change one set at once: each runs under the set's lock,
// so the stored spec and the containers end up as one of them left it (the
// one that came last), never a mix of both.

// raceSpec is a quick set to roll: replicas replaced all at once, the image's
// healthcheck off (a running replica is ready), no volumes. which tells the files
// apart in every container.
func raceSpec(h *harness, file, image, which string, replicas int) string {
	spec := fmt.Sprintf(`name: %s
replicas: %d
network: %s
podManagementPolicy: Parallel
terminationGracePeriodSeconds: 1
updateStrategy: {rollingUpdate: {maxUnavailable: 100%%}}
template:
  image: %s
  env: {WHICH: %q}
  healthcheck: {test: ["NONE"]}
`, h.set, replicas, h.network, image, which)
	path := filepath.Join(h.dir, file)
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// outcome is what a set looks like after a command: its template (told by
// image and WHICH) and replica count.
type outcome struct {
	image, which string
	replicas     int
}

// start runs ostset in the background; wait returns how it ended.
func (h *harness) start(args ...string) (wait func() result) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, ostsetBin, args...)
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		cancel()
		h.t.Fatal(err)
	}
	return func() result {
		defer cancel()
		err := cmd.Wait()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			h.t.Fatalf("ostset %v: %v", args, err)
		}
		return result{stdout: out.String(), stderr: errb.String(), code: code}
	}
}

// race starts a, then b after offset, and waits for both.
func (h *harness) race(offset time.Duration, a, b []string) (ra, rb result) {
	h.t.Helper()
	waitA := h.start(a...)
	time.Sleep(offset) // the start offset under test, not a wait for a state
	waitB := h.start(b...)
	return waitA(), waitB()
}

// storedState is the part of the state file the checks read.
type storedState struct {
	Spec struct {
		Replicas *int
		Template struct {
			Image string
			Env   map[string]string
		}
	}
	CurrentRevision, UpdateRevision string
}

func (h *harness) stored() storedState {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.stateDir, "sets", h.set+".json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var st storedState
	if err := json.Unmarshal(data, &st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// settled reports whether the set is converged: the update revision is
// current, and exactly the spec's replicas run it, ready.
func (h *harness) settled() bool {
	h.t.Helper()
	var s struct {
		Replicas, UpdatedReplicas, ReadyReplicas int
		CurrentRevision, UpdateRevision          string
		Containers                               []struct{}
	}
	h.statusJSON(&s)
	return s.CurrentRevision == s.UpdateRevision && s.UpdatedReplicas == s.Replicas &&
		s.ReadyReplicas == s.Replicas && len(s.Containers) == s.Replicas
}

// awaitSettled polls the status until the set is converged (a daemon does it
// in the background).
func (h *harness) awaitSettled() {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !h.settled() {
		if time.Now().After(deadline) {
			h.t.Fatalf("the set did not settle:\n%s", h.mustOstset("status", h.set))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// agrees fails unless the stored spec is exactly one of the outcomes and every
// container runs it: the spec's count of replicas, each at the update
// revision with the spec's WHICH. It returns the outcome.
func (h *harness) agrees(round string, outcomes ...outcome) outcome {
	h.t.Helper()
	st := h.stored()
	got := outcome{st.Spec.Template.Image, st.Spec.Template.Env["WHICH"], *st.Spec.Replicas}
	found := false
	for _, o := range outcomes {
		found = found || o == got
	}
	if !found {
		h.t.Errorf("%s: stored spec %+v is none of %+v", round, got, outcomes)
	}
	if st.CurrentRevision != st.UpdateRevision {
		h.t.Errorf("%s: current revision %s, update revision %s", round, st.CurrentRevision, st.UpdateRevision)
	}
	names := h.replicaNames()
	if len(names) != got.replicas {
		h.t.Errorf("%s: containers %v, want %d", round, names, got.replicas)
	}
	for _, n := range names {
		c := h.inspect(n)
		if rev := c.Config.Labels["io.ostset.revision"]; rev != st.UpdateRevision {
			h.t.Errorf("%s: %s at revision %s, want %s", round, n, rev, st.UpdateRevision)
		}
		if !containsString(c.Config.Env, "WHICH="+got.which) {
			h.t.Errorf("%s: %s env %v, want WHICH=%s", round, n, c.Config.Env, got.which)
		}
	}
	return got
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// offsets are the delays between the two commands of a race, one per round.
var offsets = []time.Duration{0, 30 * time.Millisecond, 300 * time.Millisecond}

// Two `ostset up` of one set with different files at once: the second waits
// for the set's lock and then applies its own file, and the set ends as the
// file applied last, whose revision is the update revision. That up succeeds;
// the other succeeds too if its rollout completed first, and otherwise exits 1
// saying that its revision was superseded, as kubectl rollout status does.
func TestConcurrentUpsApplyOneFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	files := []string{raceSpec(h, "a.yaml", imageV1, "a", 2), raceSpec(h, "b.yaml", imageV2, "b", 3)}
	outcomes := []outcome{{imageV1, "a", 2}, {imageV2, "b", 3}}
	for i, off := range offsets {
		round := fmt.Sprintf("round %d (offset %s)", i, off)
		first, second := files[i%2], files[(i+1)%2]
		ra, rb := h.race(off, []string{"up", "-f", first, "--timeout", "90s"}, []string{"up", "-f", second, "--timeout", "90s"})
		superseded := 0
		for _, r := range []result{ra, rb} {
			switch {
			case r.code == 0:
			case r.code == 1 && strings.Contains(r.stderr, "was superseded by revision"):
				superseded++
			default:
				t.Fatalf("%s: an up failed: %s", round, r)
			}
		}
		if superseded > 1 {
			t.Fatalf("%s: both ups were superseded:\n%s\n%s", round, ra, rb)
		}
		got := h.agrees(round, outcomes...)
		// The up that exited 1 is the one whose file the set does not end as.
		for j, r := range []result{ra, rb} {
			if file := (i + j) % 2; r.code != 0 && outcomes[file] == got {
				t.Errorf("%s: the up of %s said it was superseded, yet the set ends as its file", round, files[file])
			}
		}
		// The file the set ends as is the one applied last: its revision is
		// the newest in the history.
		var history []struct{ Name string }
		if err := json.Unmarshal([]byte(h.mustOstset("rollout", "history", h.set, "-o", "json").stdout), &history); err != nil {
			t.Fatal(err)
		}
		if st := h.stored(); len(history) == 0 || history[len(history)-1].Name != st.UpdateRevision {
			t.Errorf("%s: the set ends at %s (%+v), not at the last revision applied: %+v", round, st.UpdateRevision, got, history)
		}
	}
}

// `ostset scale` and `ostset rollout undo` at once: both changes are kept, as
// if one ran after the other. Undo flips between the two templates; scale
// sets its count.
func TestConcurrentScaleAndUndo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", raceSpec(h, "a.yaml", imageV1, "a", 2))
	h.mustOstset("up", "-f", raceSpec(h, "b.yaml", imageV2, "b", 2))
	templates := []outcome{{image: imageV1, which: "a"}, {image: imageV2, which: "b"}}
	at := 1 // b is the update revision
	for i, off := range offsets {
		round := fmt.Sprintf("round %d (offset %s)", i, off)
		n := []int{3, 1, 2}[i]
		scale := []string{"scale", h.set, "--replicas", fmt.Sprint(n), "--timeout", "90s"}
		undo := []string{"rollout", "undo", h.set, "--wait", "--timeout", "90s"}
		if i%2 == 1 {
			scale, undo = undo, scale
		}
		ra, rb := h.race(off, scale, undo)
		for _, r := range []result{ra, rb} {
			if r.code != 0 {
				t.Fatalf("%s: a command failed: %s", round, r)
			}
		}
		at = 1 - at
		want := templates[at]
		want.replicas = n
		h.awaitSettled()
		h.agrees(round, want)
	}
}

// Commands against a running `ostset daemon`: up (another file) and scale
// at once. Whatever order they took, the spec is the file's template with
// either count, and the daemon brings the containers to exactly that.
func TestCommandsAgainstTheDaemon(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	daemon := exec.Command(ostsetBin, "daemon")
	daemon.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	var out bytes.Buffer
	daemon.Stdout, daemon.Stderr = &out, &out
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = daemon.Process.Signal(syscall.SIGTERM)
		_ = daemon.Wait()
		if t.Failed() || strings.Contains(out.String(), "panic") {
			t.Errorf("daemon:\n%s", out.String())
		}
	}()
	files := []string{raceSpec(h, "a.yaml", imageV1, "a", 2), raceSpec(h, "b.yaml", imageV2, "b", 2)}
	h.mustOstset("up", "-f", files[0], "--wait=false")
	h.awaitSettled()
	for i, off := range offsets {
		round := fmt.Sprintf("round %d (offset %s)", i, off)
		file, which, image := files[(i+1)%2], []string{"a", "b"}[(i+1)%2], []string{imageV1, imageV2}[(i+1)%2]
		n := []int{3, 1, 3}[i]
		up := []string{"up", "-f", file, "--wait=false"}
		scale := []string{"scale", h.set, "--replicas", fmt.Sprint(n), "--wait=false"}
		if i%2 == 1 {
			up, scale = scale, up
		}
		ra, rb := h.race(off, up, scale)
		for _, r := range []result{ra, rb} {
			if r.code != 0 {
				t.Fatalf("%s: a command failed: %s", round, r)
			}
		}
		h.awaitSettled()
		// The file writes replicas: 2; the last of up and scale decides.
		h.agrees(round, outcome{image, which, 2}, outcome{image, which, n})
	}
}
