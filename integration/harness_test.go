//go:build integration

// Package integration runs ostset against the real Docker engine. Every object a
// test creates carries the test's own set name (or io.ostset.test) and is removed
// by label when the test ends; nothing else on the engine is touched.
package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Images built by `make test-images`.
const (
	imageV1 = "ostset-test/web:v1"
	imageV2 = "ostset-test/web:v2"
)

var ostsetBin string

func TestMain(m *testing.M) {
	bin, err := filepath.Abs(envOr("OSTSET_BIN", "../bin/ostset"))
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: ostset binary: %v (run make build)\n", err)
		os.Exit(1)
	}
	ostsetBin = bin
	for _, img := range []string{imageV1, imageV2} {
		if out, err := exec.Command("docker", "image", "inspect", img).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: image %s: %v %s (run make test-images)\n", img, err, out)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// lacking skips the test for something this machine lacks, except in CI
// (CI=true), where .ci/run installs everything and a test that cannot run
// is a failure, not a silent skip.
func lacking(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: "+format, args...)
	}
	t.Skipf(format, args...)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// harness is one test's set: a unique name, its own state dir and network.
type harness struct {
	t        *testing.T
	set      string
	network  string
	stateDir string
	dir      string
	// sentinels counts event recordings, to name each one's sentinel container.
	sentinels int
	// env is added to the environment of every ostset run (KEY=value).
	env []string
	// engine is the DOCKER_HOST of a test that runs its own engine, for its
	// ostset runs, daemons and docker commands alike; "" is the machine's
	// engine. Tests run in parallel, so it is never the process's environment.
	engine string
}

// engineEnv is the process's environment with the test's engine.
func (h *harness) engineEnv() []string {
	if h.engine == "" {
		return os.Environ()
	}
	return append(os.Environ(), "DOCKER_HOST="+h.engine)
}

// ostsetEnv is the environment of the test's ostset runs and daemons.
func (h *harness) ostsetEnv() []string {
	return append(append(h.engineEnv(), "OSTSET_STATE_DIR="+h.stateDir), h.env...)
}

// dockerCommand is the docker CLI with args, against the test's engine.
func (h *harness) dockerCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = h.engineEnv()
	return cmd
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessPrefix(t, "it")
}

// newHarnessPrefix is newHarness with the set's name made of prefix and
// random digits.
func newHarnessPrefix(t *testing.T, prefix string) *harness {
	t.Helper()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	h := &harness{t: t, set: prefix + hex.EncodeToString(b), stateDir: t.TempDir(), dir: t.TempDir()}
	h.network = h.set + "-net"
	t.Cleanup(h.cleanup)
	return h
}

// cleanup removes what this test made, found by label, and the test's network.
func (h *harness) cleanup() {
	for _, label := range []string{"io.ostset.set=" + h.set, "io.ostset.test=" + h.set} {
		if ids := h.dockerLines("ps", "-aq", "--filter", "label="+label); len(ids) > 0 {
			h.dockerQuiet(append([]string{"rm", "-f", "-v"}, ids...)...)
		}
		if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label="+label); len(vols) > 0 {
			h.dockerQuiet(append([]string{"volume", "rm", "-f"}, vols...)...)
		}
	}
	if ids := h.dockerLines("network", "ls", "-q", "--filter", "name=^"+h.network+"$", "--filter", "label=io.ostset.managed=true"); len(ids) > 0 {
		h.dockerQuiet(append([]string{"network", "rm"}, ids...)...)
	}
}

// spec is a set file template: {{SET}}, {{NET}} and {{IMAGE}} are filled in.
// Its healthcheck's timeout is far above the check's own time, so that an
// exec a loaded machine makes slow is not a failed check; the failures tests
// cause are the app's answers, which come at once.
const baseSpec = `
name: {{SET}}
replicas: 3
network: {{NET}}
serviceName: svc-{{SET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 5s
    retries: 1
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

// writeSpec writes a set file from tmpl with extra YAML lines appended at top level.
func (h *harness) writeSpec(tmpl, image string, replacements ...string) string {
	h.t.Helper()
	r := strings.NewReplacer(append([]string{"{{SET}}", h.set, "{{NET}}", h.network, "{{IMAGE}}", image}, replacements...)...)
	path := filepath.Join(h.dir, "set.yaml")
	if err := os.WriteFile(path, []byte(r.Replace(tmpl)), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// ostset runs the ostset binary with the test's state dir.
func (h *harness) ostset(args ...string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ostsetBin, args...)
	cmd.Env = h.ostsetEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("ostset %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// mustOstset runs ostset and fails the test unless it exits 0.
func (h *harness) mustOstset(args ...string) result {
	h.t.Helper()
	r := h.ostset(args...)
	if r.code != 0 {
		h.t.Fatalf("ostset %v: %s", args, r)
	}
	return r
}

// dockerTimeout bounds a docker command of a test: one that does not answer
// fails its test, saying which command, instead of holding the whole run
// until go test's timeout.
const dockerTimeout = 2 * time.Minute

func (h *harness) docker(args ...string) string {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), dockerTimeout)
	defer cancel()
	out, err := h.dockerCommand(ctx, args...).CombinedOutput()
	if ctx.Err() != nil {
		h.t.Fatalf("docker %v: no answer after %s\n%s", args, dockerTimeout, out)
	}
	if err != nil {
		h.t.Fatalf("docker %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (h *harness) dockerQuiet(args ...string) {
	if out, err := h.dockerCommand(context.Background(), args...).CombinedOutput(); err != nil {
		h.t.Logf("cleanup: docker %v: %v %s", args, err, out)
	}
}

func (h *harness) dockerLines(args ...string) []string {
	out, err := h.dockerCommand(context.Background(), args...).Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

func (h *harness) name(ord int) string { return fmt.Sprintf("%s-%d", h.set, ord) }

// containerInfo is the part of docker inspect the tests read.
type containerInfo struct {
	ID     string
	Config struct {
		Hostname string
		Env      []string
		Labels   map[string]string
	}
	State struct {
		Status string
		Health *struct{ Status string }
	}
	NetworkSettings struct {
		Networks map[string]struct{ Aliases []string }
	}
	Mounts []struct {
		Type, Name, Destination string
	}
}

func (h *harness) inspect(name string) containerInfo {
	h.t.Helper()
	var infos []containerInfo
	if err := json.Unmarshal([]byte(h.docker("inspect", name)), &infos); err != nil || len(infos) != 1 {
		h.t.Fatalf("inspect %s: %v", name, err)
	}
	return infos[0]
}

func (h *harness) exists(name string) bool {
	return len(h.dockerLines("ps", "-aq", "--filter", "name=^/"+name+"$")) > 0
}

// replicaNames lists the set's containers by name, as Docker has them.
func (h *harness) replicaNames() []string {
	return h.dockerLines("ps", "-a", "--filter", "label=io.ostset.set="+h.set, "--format", "{{.Names}}")
}

// awaitHealth polls Docker until the container reports the health status, so a
// test acts only once Docker itself agrees on the precondition.
func (h *harness) awaitHealth(name, status string) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := h.docker("inspect", "-f", "{{.State.Health.Status}}", name)
		if got == status {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: health %q, want %q", name, got, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// event is one Docker container event of the set.
type event struct {
	Action string
	Name   string
}

func (e event) String() string { return e.Action + " " + e.Name }

// recordEvents starts recording the set's container events from Docker's own
// event stream, and returns the function that stops and returns them, with a
// readyEvent where a replica became ready (the execs themselves are left out). The
// stream is read live (Docker's replay buffer holds only the last 256 events of
// the whole engine, which healthchecks fill in seconds); it ends at a sentinel
// container created after the action, so every earlier event has been seen.
func (h *harness) recordEvents() (stop func() []event) {
	h.t.Helper()
	sentinel := h.nextSentinel()
	since := time.Now().Add(-100 * time.Millisecond)
	cmd := h.dockerCommand(context.Background(), "events", "--since", since.Format(time.RFC3339Nano),
		"--filter", "type=container", "--filter", "event=create", "--filter", "event=start",
		"--filter", "event=kill", "--filter", "event=die", "--filter", "event=destroy",
		"--filter", "event=health_status", "--filter", "event=exec_start", "--filter", "event=exec_die",
		"--format", `{{.Action}}	{{index .Actor.Attributes "name"}}	{{index .Actor.Attributes "execID"}}	{{index .Actor.Attributes "exitCode"}}`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	evs := make(chan []event, 1)
	go func() {
		var got []event
		ready := newReadiness(healthTest)
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			f := strings.Split(lines.Text(), "\t")
			if len(f) != 4 {
				continue
			}
			a, n := f[0], f[1]
			if n == sentinel && a == "create" {
				break
			}
			if !strings.HasPrefix(n, h.set+"-") {
				continue
			}
			if ready.observe(a, n, f[2], f[3]) {
				got = append(got, event{Action: readyEvent, Name: n})
			}
			if !strings.HasPrefix(a, "exec_") {
				got = append(got, event{Action: a, Name: n})
			}
		}
		evs <- got
	}()
	return func() []event {
		h.t.Helper()
		return awaitSentinel(h, cmd, sentinel, evs)
	}
}

// nextSentinel names a new sentinel container of the test.
func (h *harness) nextSentinel() string {
	h.sentinels++
	return fmt.Sprintf("%s-sentinel%d", h.set, h.sentinels)
}

// awaitSentinel ends an event recording: it creates the sentinel container,
// waits for the reader of cmd's output to see its create and send what it
// recorded on done, and stops cmd and removes the sentinel.
func awaitSentinel[T any](h *harness, cmd *exec.Cmd, sentinel string, done <-chan T) T {
	h.t.Helper()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	h.docker("create", "--name", sentinel, "--label", "io.ostset.test="+h.set, imageV1)
	defer h.docker("rm", "-f", sentinel)
	select {
	case got := <-done:
		return got
	case <-time.After(30 * time.Second):
		h.t.Fatal("the event stream did not deliver the sentinel")
		var zero T
		return zero
	}
}

// indexOf is the position of the first event with the action and name, or -1.
func indexOf(evs []event, action, name string) int {
	for i, e := range evs {
		if e.Action == action && e.Name == name {
			return i
		}
	}
	return -1
}

// before asserts that event a happened, and happened before event b.
func before(t *testing.T, evs []event, a, b event) {
	t.Helper()
	i, j := indexOf(evs, a.Action, a.Name), indexOf(evs, b.Action, b.Name)
	if i < 0 || j < 0 || i > j {
		t.Errorf("want %q before %q in events:\n%v", a, b, evs)
	}
}

// tryDocker runs docker and returns its error instead of failing the test.
func (h *harness) tryDocker(args ...string) (string, error) {
	out, err := h.dockerCommand(context.Background(), args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// statusJSON decodes `ostset status SET -o json` into v.
func (h *harness) statusJSON(v any) {
	h.t.Helper()
	if err := json.Unmarshal([]byte(h.mustOstset("status", h.set, "-o", "json").stdout), v); err != nil {
		h.t.Fatal(err)
	}
}
