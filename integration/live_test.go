//go:build integration

package integration

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// newLiveHarness is a harness whose names start with "lv".
func newLiveHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessPrefix(t, "lv")
}

// get SET -w, against the real engine: the first table, then rows as a
// scale runs in another process, until the new ordinal is healthy; and
// exec picks the lowest ordinal of a bare set.
func TestLvGetWatchAndExec(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1, "replicas: 3", "replicas: 1"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := exec.CommandContext(ctx, ostsetBin, "get", h.set, "-w")
	watch.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	out, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	expect := func(what string, match func(string) bool) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			select {
			case l := <-lines:
				if match(l) {
					return
				}
			case <-deadline:
				t.Fatalf("get -w printed no row for %s", what)
			}
		}
	}
	expect("the first replica", func(l string) bool { return strings.HasPrefix(l, h.name(0)) && strings.Contains(l, "healthy") })
	h.mustOstset("scale", h.set, "--replicas", "2")
	expect("the new replica, healthy", func(l string) bool {
		return strings.HasPrefix(l, h.name(1)) && strings.Contains(l, "1/1") && strings.Contains(l, "healthy")
	})
	if err := watch.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := watch.Wait(); err != nil {
		t.Errorf("get -w after Ctrl-C: %v, want exit 0", err)
	}
	if r := h.mustOstset("exec", h.set, "--", "/web", "cat", "/etc/hostname"); strings.TrimSpace(r.stdout) != h.name(0) {
		t.Errorf("exec in a bare set ran in %q, want %s", r.stdout, h.name(0))
	}
	if r := h.ostset("exec", h.name(1), "--", "/web", "nosuch"); r.code != 2 {
		t.Errorf("exec of a failing command: %s; want its exit code 2", r)
	}
}

// exec of a replica the set does not have (SET-9 of a set of 2) names the
// replicas it has and exits 2, rather than pass on Docker's "No such
// container"; one it has runs.
func TestLvExecReplicaTheSetDoesNotHave(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1, "replicas: 3", "replicas: 2"))
	r := h.ostset("exec", h.name(9), "--", "/web", "cat", "/etc/hostname")
	want := "set " + h.set + " has no replica " + h.name(9) + ": its 2 replicas are " + h.name(0) + " and " + h.name(1) +
		" (with a container: " + h.name(0) + ", " + h.name(1) + ")"
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "No such container") {
		t.Errorf("exec %s: %s\nwant exit 2 and %q", h.name(9), r, want)
	}
	if r := h.mustOstset("exec", h.name(1), "--", "/web", "cat", "/etc/hostname"); strings.TrimSpace(r.stdout) != h.name(1) {
		t.Errorf("exec %s ran in %q", h.name(1), r.stdout)
	}
}

// ostset view under tmux against the real engine: two quick presses of +
// scale 1 to 3 and show the new ordinals, healthy; r asks before it restarts.
func TestLvViewScalesUnderTmux(t *testing.T) {
	t.Parallel()
	requireTool(t, "tmux", "tmux")
	h := newLiveHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1, "replicas: 3", "replicas: 1"))
	session, tmux := viewInTmux(t, h)
	await := func(what string, ok func(screen string) bool) string {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			screen := tmux("capture-pane", "-p", "-t", session)
			if ok(screen) {
				return screen
			}
			if time.Now().After(deadline) {
				t.Fatalf("the view never showed %s:\n%s", what, screen)
			}
			time.Sleep(200 * time.Millisecond) // capture-pane reads a screen; there is no event to wait on
		}
	}
	await("the first replica", func(s string) bool { return strings.Contains(s, h.name(0)) })
	tmux("send-keys", "-t", session, "+", "+") // two presses before any read shows the first: 1 → 3
	await("the new ordinals, healthy", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, h.name(2)+" ") && strings.Contains(l, "running") && strings.Contains(l, " healthy ") && strings.Contains(l, "1/1") {
				return true
			}
		}
		return false
	})
	var st struct {
		Replicas int `json:"replicas"`
	}
	h.statusJSON(&st)
	if st.Replicas != 3 {
		t.Errorf("two presses of + on 1 replica: %d replicas, want 3", st.Replicas)
	}
	tmux("send-keys", "-t", session, "r")
	await("the question before a restart", func(s string) bool {
		return strings.Contains(s, "restart every replica of "+h.set+" (rollout restart)? (y/n)")
	})
	tmux("send-keys", "-t", session, "n")
	await("the answer", func(s string) bool {
		return strings.Contains(s, "restart every replica of "+h.set+" (rollout restart)? no")
	})
	tmux("send-keys", "-t", session, "q")
}

// viewInTmux runs ostset view SET in a 200x50 tmux session named after the
// set, killed at cleanup, and returns the session and a tmux runner.
func viewInTmux(t *testing.T, h *harness) (session string, tmux func(args ...string) string) {
	t.Helper()
	session = h.set
	tmux = func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50",
		"env", "OSTSET_STATE_DIR="+h.stateDir, ostsetBin, "view", h.set)
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() })
	return session, tmux
}
