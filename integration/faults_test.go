//go:build integration

package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/internal/faultproxy"
)

// These tests run ostset against the real engine through a fault-injecting
// proxy (internal/faultproxy): DOCKER_HOST points at the proxy, which loses
// answers, breaks connections, answers errors or cuts the engine off. What they
// check is read from the engine directly, never through the proxy.

// faultSpec is baseSpec without a healthcheck (running means ready), so that
// what these tests wait for is ostset getting past the faults, not health
// checks of a busy machine.
func faultSpec(replicas int) string {
	return strings.Replace(scaledSpec(replicas, ""), `  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 1s
    retries: 1
`, `  healthcheck:
    test: ["NONE"]
`, 1)
}

// withProxy points every ostset run of the harness at a new proxy in front of
// the engine.
func (h *harness) withProxy() *faultproxy.Proxy {
	h.t.Helper()
	dir, err := os.MkdirTemp("", "ofp")
	if err != nil {
		h.t.Fatal(err)
	}
	p, err := faultproxy.Start("/var/run/docker.sock", dir)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		_ = p.Close()
		_ = os.RemoveAll(dir)
	})
	h.env = append(h.env, "DOCKER_HOST="+p.Host())
	return p
}

// guardOrdinals samples the engine's own list of the set's containers until
// the returned function is called, and fails the test if it ever saw two
// replica containers (init containers aside) carrying one ordinal.
func (h *harness) guardOrdinals() (stop func()) {
	h.t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var violations []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if v := h.duplicateOrdinals(); v != "" {
				violations = append(violations, v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		h.t.Helper()
		close(done)
		wg.Wait()
		if v := h.duplicateOrdinals(); v != "" {
			violations = append(violations, v)
		}
		for _, v := range violations {
			h.t.Errorf("two containers for one ordinal: %s", v)
		}
	}
}

// duplicateOrdinals describes the ordinals the engine holds more than one
// replica container for, "" if none.
func (h *harness) duplicateOrdinals() string {
	lines := h.dockerLines("ps", "-a", "--filter", "label=io.ostset.set="+h.set,
		"--format", `{{.Label "io.ostset.ordinal"}}/{{.Label "io.ostset.init"}}/{{.Names}}`)
	byOrdinal := map[string][]string{}
	for _, l := range lines {
		parts := strings.SplitN(l, "/", 3)
		if len(parts) != 3 || parts[1] != "" {
			continue
		}
		byOrdinal[parts[0]] = append(byOrdinal[parts[0]], parts[2])
	}
	var out []string
	for ord, names := range byOrdinal {
		if len(names) > 1 {
			out = append(out, fmt.Sprintf("ordinal %s: %v", ord, names))
		}
	}
	return strings.Join(out, "; ")
}

// checkReplicas asserts from the engine that the set has exactly the replicas
// 0..n-1, each running at one revision, and returns that revision.
func (h *harness) checkReplicas(n int) string {
	h.t.Helper()
	names := h.replicaNames()
	if len(names) != n {
		h.t.Fatalf("the engine holds %v, want %d replicas", names, n)
	}
	rev := ""
	for ord := range n {
		c := h.inspect(h.name(ord))
		if c.State.Status != "running" || c.Config.Labels["io.ostset.ordinal"] != fmt.Sprint(ord) {
			h.t.Errorf("%s: %s, ordinal label %q", h.name(ord), c.State.Status, c.Config.Labels["io.ostset.ordinal"])
		}
		if r := c.Config.Labels["io.ostset.revision"]; rev == "" {
			rev = r
		} else if r != rev {
			h.t.Errorf("%s at %s, others at %s", h.name(ord), r, rev)
		}
	}
	return rev
}

// noCrash asserts that an ostset run ended by itself with an exit code, not a
// Go panic or a fatal runtime error.
func noCrash(t *testing.T, r result) {
	t.Helper()
	for _, s := range []string{"panic:", "fatal error:", "goroutine "} {
		if strings.Contains(r.stderr, s) {
			t.Fatalf("ostset crashed:\n%s", r)
		}
	}
}

// Lost answers, broken connections and errors from the engine during a first
// rollout, an update and a scale-down: ostset reports each error, retries with
// back-off, finds the containers whose create answer was lost by name and
// labels, never holds two containers for one ordinal, and converges.
func TestFaultsDuringRolloutAndScaleConverge(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.withProxy()
	guard := h.guardOrdinals()
	defer guard()

	lostCreates := p.AddFault(faultproxy.Rule{Method: "POST", Path: "/containers/create", Action: faultproxy.LoseAnswer, Times: 2})
	startError := p.AddFault(faultproxy.Rule{Method: "POST", Path: "/containers/*/start", Action: faultproxy.Error, Times: 1})
	volumeReset := p.AddFault(faultproxy.Rule{Method: "POST", Path: "/volumes/create", Action: faultproxy.Reset, Times: 1})
	r := h.ostset("up", "-f", h.writeSpec(faultSpec(3), imageV1), "--timeout", "2m")
	noCrash(t, r)
	if r.code != 0 {
		t.Fatalf("up under faults: %s", r)
	}
	for _, f := range []*faultproxy.Fault{lostCreates, startError, volumeReset} {
		if f.Hits() == 0 {
			t.Fatalf("a fault never applied (lost creates %d, start errors %d, volume resets %d)", lostCreates.Hits(), startError.Hits(), volumeReset.Hits())
		}
	}
	if !strings.Contains(r.stdout, "error: ") || !strings.Contains(r.stdout, "retrying every") {
		t.Errorf("up did not report the errors it retried:\n%s", r)
	}
	// A create whose answer was lost is started by a later pass, not created again.
	if n := strings.Count(r.stdout, "started\n"); n < lostCreates.Hits() {
		t.Errorf("%d replicas started after a lost create, want %d:\n%s", n, lostCreates.Hits(), r)
	}
	v1 := h.checkReplicas(3)

	// An update: a create never reaches the engine, another loses its answer,
	// a stop breaks, a remove loses its answer, every create is slow.
	p.SetRules(
		faultproxy.Rule{Method: "POST", Path: "/containers/create", Action: faultproxy.Drop, Times: 1},
		faultproxy.Rule{Method: "POST", Path: "/containers/create", Action: faultproxy.LoseAnswer, Times: 1},
		faultproxy.Rule{Method: "POST", Path: "/containers/create", Action: faultproxy.Forward, Delay: 300 * time.Millisecond},
		faultproxy.Rule{Method: "POST", Path: "/containers/*/stop", Action: faultproxy.Reset, Times: 1},
		faultproxy.Rule{Method: "DELETE", Path: "/containers/*", Action: faultproxy.LoseAnswer, Times: 1},
	)
	r = h.ostset("up", "-f", h.writeSpec(faultSpec(3), imageV2), "--timeout", "2m")
	noCrash(t, r)
	if r.code != 0 {
		t.Fatalf("update under faults: %s", r)
	}
	if v2 := h.checkReplicas(3); v2 == v1 {
		t.Errorf("the update left the replicas at %s", v1)
	}

	// Scale down while removes fail.
	p.SetRules(faultproxy.Rule{Method: "DELETE", Path: "/containers/*", Action: faultproxy.Error, Times: 1, Message: "injected: remove failed"})
	r = h.ostset("scale", h.set, "--replicas", "1", "--timeout", "2m")
	noCrash(t, r)
	if r.code != 0 || !strings.Contains(r.stdout, "injected: remove failed") {
		t.Fatalf("scale down under faults (want exit 0 after reporting the failed remove): %s", r)
	}
	h.checkReplicas(1)
}

// bgRun is an ostset run in the background whose output can be waited on.
type bgRun struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	errb strings.Builder
	done chan result
}

func (h *harness) ostsetBackground(args ...string) *bgRun {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	b := &bgRun{cmd: exec.CommandContext(ctx, ostsetBin, args...), done: make(chan result, 1)}
	b.cmd.Env = h.ostsetEnv()
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	b.cmd.Stderr = writerFunc(func(p []byte) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.errb.Write(p)
	})
	if err := b.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	go func() {
		defer cancel()
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			b.mu.Lock()
			b.out.WriteString(lines.Text() + "\n")
			b.mu.Unlock()
		}
		err := b.cmd.Wait()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		b.done <- result{stdout: b.out.String(), stderr: b.errb.String(), code: code}
	}()
	return b
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func (b *bgRun) stdout() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.String()
}

// await polls cond until it holds; it fails the test after a minute, or at
// once if the run ended first.
func (b *bgRun) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case r := <-b.done:
			b.done <- r
			t.Fatalf("ostset ended before %s: %s", what, r)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; output so far:\n%s", what, b.stdout())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (b *bgRun) wait() result { return <-b.done }

// The engine goes away in the middle of a scale-up (every connection cut, the
// event stream too, new ones refused): the waiting command reports the error,
// keeps waiting, and completes once the engine is back.
func TestEngineCutDuringScaleUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.withProxy()
	guard := h.guardOrdinals()
	defer guard()
	h.mustOstset("up", "-f", h.writeSpec(faultSpec(1), imageV1))

	// The create of the last replica is held at the proxy, so the engine goes
	// away in the middle of the scale-up however fast the machine; the cut
	// drops the held request before it reaches the engine.
	held := p.AddFault(faultproxy.Rule{Method: "POST", Path: "/containers/create", Query: "name=" + h.name(2),
		Action: faultproxy.Forward, Delay: 2 * time.Minute, Times: 1})
	run := h.ostsetBackground("scale", h.set, "--replicas", "3", "--timeout", "2m")
	run.await(t, "the create of "+h.name(2)+" held", func() bool { return held.Hits() == 1 })
	p.Cut()
	run.await(t, "the error reported", func() bool { return strings.Contains(run.stdout(), "error: ") })
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	r := run.wait()
	noCrash(t, r)
	if r.code != 0 {
		t.Fatalf("scale across an engine cut: %s", r)
	}
	if !strings.Contains(r.stdout, "retrying every") {
		t.Errorf("scale did not say it retries:\n%s", r)
	}
	h.checkReplicas(3)
}

// A network Docker will not remove ("has active endpoints" with no container
// attached: stale endpoints) no longer keeps a delete from finishing: the set
// is gone, the network is left behind with a warning that names it and says
// how to clear it. A delete that fails for another reason is shown as being
// deleted by get, status and describe until a later down finishes it.
func TestDownFinishesDespiteAStaleNetwork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.withProxy()
	file := h.writeSpec(faultSpec(2), imageV1)
	h.mustOstset("up", "-f", file)
	netID := h.docker("network", "inspect", "-f", "{{.Id}}", h.network)

	// First a failure that is not stale endpoints: the delete stays pending and says so.
	failed := p.AddFault(faultproxy.Rule{Method: "DELETE", Path: "/networks/*", Action: faultproxy.Error, Times: 1, Message: "injected: engine busy"})
	r := h.ostset("down", h.set)
	noCrash(t, r)
	if r.code != 1 || failed.Hits() != 1 || !strings.Contains(r.stderr, "injected: engine busy") {
		t.Fatalf("down with a failing network remove: %s", r)
	}
	pending := "is being deleted (an 'ostset down' did not finish"
	if g := h.mustOstset("get"); !strings.Contains(g.stderr, h.set+" "+pending) || !regexp.MustCompile(`(?m)^`+h.set+` +0/[0-9]+ \(deleting\) `).MatchString(g.stdout) {
		t.Errorf("get does not show the set being deleted:\n%s", g)
	}
	if s := h.mustOstset("status", h.set); !strings.Contains(s.stdout, "deleting: "+h.set+" "+pending) {
		t.Errorf("status does not show the set being deleted:\n%s", s)
	}
	var st struct{ Deleting *struct{ Volumes bool } }
	h.statusJSON(&st)
	if st.Deleting == nil {
		t.Error("status -o json has no deleting field")
	}
	if d := h.mustOstset("describe", h.set); !strings.Contains(d.stdout, "Deleting:        "+h.set+" "+pending) {
		t.Errorf("describe does not show the set being deleted:\n%s", d)
	}

	// Then Docker's own answer for stale endpoints.
	stale := p.AddFault(faultproxy.Rule{Method: "DELETE", Path: "/networks/*", Action: faultproxy.Error, Status: 403,
		Message: fmt.Sprintf("error while removing network: network %s id %s has active endpoints", h.network, netID)})
	r = h.ostset("down", h.set)
	noCrash(t, r)
	if r.code != 0 || stale.Hits() != 1 {
		t.Fatalf("down with stale endpoints on the network (want exit 0): %s", r)
	}
	for _, want := range []string{
		"warning: network " + h.network + " (id " + netID[:12] + ") left behind",
		"docker network inspect " + h.network,
		"docker network disconnect -f " + h.network,
		h.set + ": deleted",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("down output lacks %q:\n%s", want, r)
		}
	}
	if g := h.mustOstset("get"); strings.Contains(g.stdout+g.stderr, h.set) {
		t.Errorf("get still lists the deleted set:\n%s", g)
	}
	if s := h.ostset("status", h.set); s.code != 2 {
		t.Errorf("status of the deleted set: want exit 2 (unknown set), got %s", s)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("replicas left after down: %v", names)
	}
	if got := h.docker("network", "inspect", "-f", "{{.Id}}", h.network); got != netID {
		t.Errorf("network %s: %s, want it left behind as %s", h.network, got, netID)
	}
}

// The set's network is removed under running replicas (each disconnected by
// hand first, as Docker requires): the next pass creates the network again and
// recreates the replicas on it, with their aliases and their volumes' data.
func TestNetworkRemovedUnderReplicas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(faultSpec(2), imageV1))
	h.docker("exec", h.name(0), "/web", "write", "/data/note", "kept")
	oldNet := h.docker("network", "inspect", "-f", "{{.Id}}", h.network)
	oldIDs := map[string]string{}
	for ord := range 2 {
		oldIDs[h.name(ord)] = h.inspect(h.name(ord)).ID
		h.docker("network", "disconnect", "-f", h.network, h.name(ord))
	}
	h.docker("network", "rm", h.network)

	var status struct{ Waiting []string }
	h.statusJSON(&status)
	r := h.mustOstset("reconcile", h.set, "--timeout", "90s")
	if !strings.Contains(r.stdout, "not attached to network "+h.network) {
		t.Errorf("reconcile does not say why it recreates the replicas:\n%s", r)
	}
	if got := h.docker("network", "inspect", "-f", `{{.Id}} {{index .Labels "io.ostset.managed"}}`, h.network); strings.HasPrefix(got, oldNet) || !strings.HasSuffix(got, " true") {
		t.Errorf("network after reconcile: %q (old id %s)", got, oldNet)
	}
	for ord := range 2 {
		c := h.inspect(h.name(ord))
		if c.ID == oldIDs[h.name(ord)] {
			t.Errorf("%s was not recreated", h.name(ord))
		}
		aliases := strings.Join(c.NetworkSettings.Networks[h.network].Aliases, " ")
		if !strings.Contains(aliases, "svc-"+h.set) {
			t.Errorf("%s aliases on %s: %q", h.name(ord), h.network, aliases)
		}
	}
	if got := h.docker("exec", h.name(0), "/web", "cat", "/data/note"); got != "kept" {
		t.Errorf("data after the recreation: %q", got)
	}
}

// Docker refuses to remove a volume a replica uses, running or stopped; once
// the replica and its volume are both removed by hand, the next pass recreates
// the replica with a new, empty volume carrying the set's labels.
func TestVolumeRemovedUnderReplica(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(faultSpec(1), imageV1))
	vol := "data-" + h.name(0)
	h.docker("exec", h.name(0), "/web", "write", "/data/note", "old")
	if out, err := h.tryDocker("volume", "rm", "-f", vol); err == nil || !strings.Contains(out, "volume is in use") {
		t.Fatalf("docker volume rm -f of a volume in use: %v %s", err, out)
	}
	h.docker("rm", "-f", h.name(0))
	h.docker("volume", "rm", vol)
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	h.checkReplicas(1)
	var labels map[string]string
	if err := json.Unmarshal([]byte(h.docker("volume", "inspect", "-f", "{{json .Labels}}", vol)), &labels); err != nil {
		t.Fatal(err)
	}
	if labels["io.ostset.set"] != h.set || labels["io.ostset.ordinal"] != "0" {
		t.Errorf("the new volume's labels: %v", labels)
	}
	if out, err := h.tryDocker("exec", h.name(0), "/web", "cat", "/data/note"); err == nil {
		t.Errorf("the new volume holds the old data: %s", out)
	}
}
