//go:build integration

package integration

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ostset logs: every replica's lines, prefixed by its name, in ordinal order; one
// replica by SET-ORDINAL; --tail, --no-prefix; unknown names are invalid input.
func TestLogs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := strings.Replace(baseSpec, "replicas: 3", "replicas: 2", 1)
	// The web server logs "<OSTSET_NAME> (version $VERSION) listening on :8080" at startup.
	spec = strings.Replace(spec, "  healthcheck:", "  env: {VERSION: logtest}\n  healthcheck:", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	listening := func(ord int) string { return h.name(ord) + " (version logtest) listening on" }

	r := h.mustOstset("logs", h.set)
	lines := nonEmptyLines(r.stdout)
	prefixes := []string{h.name(0) + " | ", h.name(1) + " | "}
	last := -1
	for _, l := range lines {
		ord := -1
		for i, p := range prefixes {
			if strings.HasPrefix(l, p) {
				ord = i
			}
		}
		if ord < 0 {
			t.Errorf("line without a replica prefix: %q", l)
			continue
		}
		if ord < last {
			t.Errorf("line of %s after lines of %s: want ordinal order\n%s", h.name(ord), h.name(last), r.stdout)
		}
		last = ord
	}
	for ord := range 2 {
		if !containsLine(lines, prefixes[ord], listening(ord)) {
			t.Errorf("logs %s lack %q from %s:\n%s", h.set, listening(ord), h.name(ord), r)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour codes although stdout is not a terminal:\n%q", r.stdout)
	}

	r = h.mustOstset("logs", h.name(1))
	lines = nonEmptyLines(r.stdout)
	if len(lines) == 0 || !containsLine(lines, h.name(1)+" | ", listening(1)) {
		t.Errorf("logs %s lack its listening line:\n%s", h.name(1), r)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, h.name(1)+" | ") {
			t.Errorf("logs %s: line not prefixed by %s: %q", h.name(1), h.name(1), l)
		}
	}

	r = h.mustOstset("logs", "--no-prefix", "--tail", "1", h.name(0))
	if lines := nonEmptyLines(r.stdout); len(lines) != 1 || strings.HasPrefix(lines[0], h.name(0)+" |") ||
		!strings.Contains(lines[0], listening(0)) {
		t.Errorf("logs --no-prefix --tail 1 %s: want its one listening line, unprefixed:\n%s", h.name(0), r)
	}

	for _, args := range [][]string{{"logs", "nosuchset"}, {"logs", h.set + "-x"}, {"logs", "--tail", "-3", h.set}} {
		if r := h.ostset(args...); r.code != 2 {
			t.Errorf("ostset %v: want exit 2, got %s", args, r)
		}
	}
	if r := h.ostset("logs", h.name(7)); r.code != 2 || !strings.Contains(r.stderr, "its 2 replicas are "+h.name(0)+" and "+h.name(1)) {
		t.Errorf("logs of a replica the set does not have: want exit 2 naming those it has, got %s", r)
	}
	h.docker("rm", "-f", h.name(1))
	if r := h.ostset("logs", h.name(1)); r.code != 1 || !strings.Contains(r.stderr, "has no container now") {
		t.Errorf("logs of a replica without a container: want exit 1 saying so, got %s", r)
	}
}

// ostset logs -f prints lines as they arrive and stops cleanly (exit 0) on SIGINT.
func TestLogsFollow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := strings.Replace(baseSpec, "replicas: 3", "replicas: 2", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ostsetBin, "logs", "-f", h.set)
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	// await reads lines until every line seen so far has included, for each
	// want, one that starts with want[0] and contains want[1] (the replicas'
	// streams interleave, so the wanted lines may come in any order).
	var seen []string
	await := func(wants ...[2]string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			missing := false
			for _, w := range wants {
				missing = missing || !containsLine(seen, w[0], w[1])
			}
			if !missing {
				return
			}
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("logs -f ended before %v; stderr: %s\nstdout:\n%s", wants, stderr.String(), strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
			case <-timeout:
				t.Fatalf("logs -f: no lines %v within 30s; stdout:\n%s", wants, strings.Join(seen, "\n"))
			}
		}
	}
	await([2]string{h.name(0) + " | ", "listening on"}, [2]string{h.name(1) + " | ", "listening on"})

	// A line written while following: stopping web-1 makes it log its shutdown.
	h.docker("stop", "-t", "5", h.name(1))
	await([2]string{h.name(1) + " | ", "signal received, shutting down"})

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines {
		}
	}()
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("logs -f after SIGINT: exit %d, want 0; stderr: %s", ee.ExitCode(), stderr.String())
		}
		t.Fatal(err)
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func containsLine(lines []string, prefix, substr string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, substr) {
			return true
		}
	}
	return false
}
