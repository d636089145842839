//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/faultproxy"
)

// daemon is a running `ostset daemon` of a test.
type daemon struct {
	t   *testing.T
	cmd *exec.Cmd
	out *syncBuffer
	end chan struct{}
}

// syncBuffer is an output buffer the daemon writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startDaemon starts ostset daemon on the test's state dir with extra
// environment and arguments, and waits until its event stream is open.
func (h *harness) startDaemon(env []string, args ...string) *daemon {
	h.t.Helper()
	cmd := exec.Command(ostsetBin, append([]string{"daemon"}, args...)...)
	cmd.Env = append(h.ostsetEnv(), env...)
	d := &daemon{t: h.t, cmd: cmd, out: &syncBuffer{}, end: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(d.end) }()
	h.t.Cleanup(func() { d.kill() })
	d.await("docker events subscribed")
	return d
}

// await waits until the daemon's log holds text.
func (d *daemon) await(text string) {
	d.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(d.out.String(), text) {
		select {
		case <-d.end:
			d.t.Fatalf("daemon exited before saying %q:\n%s", text, d.out)
		default:
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("daemon did not say %q:\n%s", text, d.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and checks that the daemon exits 0.
func (d *daemon) stop() {
	d.t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.end:
	case <-time.After(60 * time.Second):
		d.t.Fatalf("daemon still running 60s after SIGTERM:\n%s", d.out)
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		d.t.Errorf("daemon exit %d on SIGTERM:\n%s", code, d.out)
	}
}

// kill sends SIGKILL and waits for the process to go.
func (d *daemon) kill() {
	_ = d.cmd.Process.Kill()
	<-d.end
}

// daemonSpec is the test set without its healthcheck: these tests are about
// the daemon noticing and acting, so running is ready, and a probe that times
// out on a busy machine cannot hold them up.
func daemonSpec(replicas int) string {
	spec := scaledSpec(replicas, "")
	i, j := strings.Index(spec, "  healthcheck:"), strings.Index(spec, "volumeClaimTemplates:")
	return spec[:i] + "  healthcheck:\n    test: [\"NONE\"]\n" + spec[j:]
}

// ostset daemon converges a set applied without waiting and heals a replica
// removed behind its back, reacting to Docker events; its /metrics says so.
func TestDaemonConvergesAndHeals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	d := h.startDaemon(nil, "--metrics-addr", "127.0.0.1:0", "--pprof", "--log-format", "json", "--resync", "10m")
	addr := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/metrics`).FindStringSubmatch(d.out.String())
	if addr == nil {
		t.Fatalf("no metrics address in the daemon's log:\n%s", d.out)
	}

	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(2), imageV1), "--wait=false")
	h.awaitReady(2)
	old := h.inspect(h.name(1)).ID
	h.docker("rm", "-f", h.name(1))
	h.awaitReady(2)
	if h.inspect(h.name(1)).ID == old {
		t.Errorf("%s was not recreated", h.name(1))
	}
	metrics := get(t, "http://"+addr[1]+"/metrics")
	for _, want := range []string{
		`ostset_reaction_seconds_count [1-9]`, // the heal, at least (creates after health events count too)
		`ostset_actions_total\{kind="create"\} [3-9]`,
		`ostset_replicas\{set="` + h.set + `",state="ready"\} 2`,
	} {
		if !regexp.MustCompile(want).MatchString(metrics) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
	if got := get(t, "http://"+addr[1]+"/healthz"); got != "ok\n" {
		t.Errorf("/healthz: %q", got)
	}
	if got := get(t, "http://"+addr[1]+"/debug/pprof/"); !strings.Contains(got, "goroutine") {
		t.Errorf("/debug/pprof/ with --pprof: %.200q", got)
	}
	d.stop()
	if !strings.Contains(d.out.String(), `"msg":"daemon stopping`) {
		t.Errorf("no JSON log line for the stop:\n%s", d.out)
	}
}

// A daemon killed with SIGKILL at any point, even in the middle of healing a
// replica, and started again converges with exactly one container per ordinal.
func TestDaemonKilledAndRestartedConvergesWithoutDuplicates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	d := h.startDaemon(nil)
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(3), imageV1), "--wait=false")
	h.awaitReady(3)
	for i, delay := range []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond} {
		h.docker("rm", "-f", h.name(i))
		time.Sleep(delay) // where in its reaction the daemon is killed
		d.kill()
		d = h.startDaemon(nil)
		h.awaitReady(3)
		names := h.replicaNames()
		slices.Sort(names)
		if want := []string{h.name(0), h.name(1), h.name(2)}; !slices.Equal(names, want) {
			t.Fatalf("after kill %d: containers %v, want %v", i, names, want)
		}
	}
	d.stop()
}

// When the connection to the engine drops, the daemon reconnects and passes
// every set at once, so a replica removed while it could not hear comes back
// without waiting for the resync (here 10 minutes away).
func TestDaemonReconnectsAndResyncs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir, err := os.MkdirTemp("", "ofp") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start("/var/run/docker.sock", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(); _ = os.RemoveAll(dir) })
	d := h.startDaemon([]string{"DOCKER_HOST=" + p.Host()}, "--resync", "10m")
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(2), imageV1), "--wait=false")
	h.awaitReady(2)
	old := h.inspect(h.name(0)).ID

	p.Cut()
	d.await("docker event stream ended")
	h.docker("rm", "-f", h.name(0)) // directly on the engine: the daemon cannot see it
	if h.exists(h.name(0)) {
		t.Fatalf("%s still exists", h.name(0))
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	h.awaitReady(2)
	if h.inspect(h.name(0)).ID == old {
		t.Errorf("%s was not recreated", h.name(0))
	}
	d.stop()
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// awaitReady polls the set's status until n replicas are ready (a generous
// deadline: on a loaded 2-core machine a create and a first healthy probe can
// take tens of seconds).
func (h *harness) awaitReady(n int) {
	h.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
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

// A set whose lock a command holds is waited for, and the wait is said in the
// daemon's log format: every line of a JSON log parses as JSON.
func TestDaemonLogsLockWaitInItsFormat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(1), imageV1), "--wait=false")
	unlock, err := state.Store{Dir: h.stateDir}.Lock(context.Background(), h.set)
	if err != nil {
		t.Fatal(err)
	}
	d := h.startDaemon(nil, "--log-format", "json")
	d.await("waiting for its lock")
	unlock()
	h.awaitReady(1)
	d.stop()
	for _, line := range strings.Split(strings.TrimSpace(d.out.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON log line: %q", line)
		}
	}
}
