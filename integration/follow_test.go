//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// followSpec is a set whose replicas have no healthcheck (the image's is
// disabled): they are ready once they run, so what these tests compare does not
// hang on probe timing.
func followSpec(replicas int) string {
	spec := scaledSpec(replicas, "")
	i, j := strings.Index(spec, "  healthcheck:"), strings.Index(spec, "volumeClaimTemplates:")
	return spec[:i] + "  healthcheck:\n    test: [\"NONE\"]\n" + spec[j:]
}

// progressLines are the lines of a command's output that do not depend on how
// long things took: what was created, removed and became ready, and the end;
// with the set's name and revision hashes blanked, once each, sorted. (Which
// waits a rollout reports, and whether a replica under load turns unhealthy for
// a while, vary from run to run.)
func (h *harness) progressLines(out string) []string {
	dur := regexp.MustCompile(`\([0-9.ms]+\)$`)
	rev := regexp.MustCompile(`SET-[0-9a-f]{5,}`)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, "waiting") || strings.Contains(l, "following the rollout that the daemon") {
			continue
		}
		l = rev.ReplaceAllString(strings.ReplaceAll(l, h.set, "SET"), "SET-REV")
		lines = append(lines, dur.ReplaceAllString(l, "(T)"))
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// With a daemon running, `ostset up` follows it: the daemon creates the replicas,
// the command prints the progress lines it prints when it drives, and exits 0.
func TestUpFollowsTheDaemon(t *testing.T) {
	t.Parallel()
	alone := newHarness(t)
	driven := alone.mustOstset("up", "-f", alone.writeSpec(followSpec(2), imageV1))

	h := newHarness(t)
	d := h.startDaemon(nil).cmd
	r := h.mustOstset("up", "-f", h.writeSpec(followSpec(2), imageV1))
	if want := "following the rollout that the daemon (pid " + strconv.Itoa(d.Process.Pid) + ") drives"; !strings.Contains(r.stdout, want) {
		t.Errorf("up does not say that it follows the daemon:\n%s", r)
	}
	if got, want := h.progressLines(r.stdout), alone.progressLines(driven.stdout); !slices.Equal(got, want) {
		t.Errorf("following, up printed\n%s\nwant, as when it drives,\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(h.replicaNames()); n != 2 {
		t.Errorf("%d replicas, want 2", n)
	}
	// The event log says who acted: the daemon created every replica.
	created := 0
	for _, e := range h.events() {
		if strings.Contains(e.Message, " created (revision ") {
			created++
			if e.PID != d.Process.Pid {
				t.Errorf("%q recorded by pid %d, want the daemon's %d", e.Message, e.PID, d.Process.Pid)
			}
		}
	}
	if created != 2 {
		t.Errorf("%d replicas created according to the event log, want 2", created)
	}
	if r := h.mustOstset("get"); !strings.Contains(r.stderr, "daemon running (pid "+strconv.Itoa(d.Process.Pid)+")") {
		t.Errorf("get does not name the daemon:\n%s", r)
	}
}

// A command following the daemon goes on with the rollout itself when the daemon
// dies.
func TestFollowerTakesOverFromADeadDaemon(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	d := h.startDaemon(nil).cmd
	h.mustOstset("up", "-f", h.writeSpec(followSpec(2), imageV1))
	before := h.revisions()

	cmd := exec.Command(ostsetBin, "rollout", "restart", h.set, "--timeout", "2m")
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		out = append(out, lines.Text())
		if strings.Contains(lines.Text(), "following the rollout that the daemon") {
			_ = d.Process.Kill()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rollout restart: %v\n%s\n%s", err, strings.Join(out, "\n"), stderr.String())
	}
	text := strings.Join(out, "\n")
	for _, want := range []string{"the daemon (pid " + strconv.Itoa(d.Process.Pid) + ") stopped: going on with the rollout", h.set + ": rollout complete"} {
		if !strings.Contains(text, want) {
			t.Errorf("rollout restart output lacks %q:\n%s", want, text)
		}
	}
	after := h.revisions()
	for name, rev := range after {
		if rev == before[name] {
			t.Errorf("%s still at %s after the restart", name, rev)
		}
	}
}

// loggedEvent is one line of `ostset events SET -o json`.
type loggedEvent struct {
	Message string `json:"message"`
	PID     int    `json:"pid"`
}

func (h *harness) events() []loggedEvent {
	h.t.Helper()
	var evs []loggedEvent
	for _, l := range strings.Split(strings.TrimSpace(h.mustOstset("events", h.set, "-o", "json").stdout), "\n") {
		var e loggedEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			h.t.Fatalf("events -o json: %v: %s", err, l)
		}
		evs = append(evs, e)
	}
	return evs
}
