//go:build integration

package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// initSpec is a set with init containers: {{N}} replicas, {{INITS}} the list.
const initSpec = `
name: {{SET}}
replicas: {{N}}
network: {{NET}}
serviceName: svc-{{SET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 1s
    retries: 1
  initContainers:
{{INITS}}
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

func (h *harness) writeInitSpec(replicas, inits string) string {
	h.t.Helper()
	return h.writeSpec(initSpec, imageV1, "{{N}}", replicas, "{{INITS}}", strings.ReplaceAll(inits, "{{IMAGE}}", imageV1))
}

// initNames lists the set's init containers as Docker has them.
func (h *harness) initNames() []string {
	return h.dockerLines("ps", "-a", "--filter", "label=io.ostset.set="+h.set, "--filter", "label=io.ostset.init", "--format", "{{.Names}}")
}

// awaitExited polls Docker until the container has exited and returns its exit
// code: an init container exits by itself, maybe after the command that started it.
func (h *harness) awaitExited(name string) int {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		state := h.docker("inspect", "-f", "{{.State.Status}} {{.State.ExitCode}}", name)
		if status, code, _ := strings.Cut(state, " "); status == "exited" {
			n := 0
			for _, c := range code {
				n = n*10 + int(c-'0')
			}
			return n
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: %s, want exited", name, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Init containers run in order before each replica, with its per-ordinal volume
// and templates expanded for it; the replica reads what they wrote; they are
// gone once it started; a Docker restart of the replica runs none of them again.
func TestInitContainersSeedTheVolume(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeInitSpec("2", `    - name: seed
      image: {{IMAGE}}
      command: ["/web", "write", "/data/seed", "ordinal {{.Ordinal}} of {{.Set}} as {{.Name}}"]
    - name: check
      image: {{IMAGE}}
      command: ["/web", "cat", "/data/seed"]`)
	stop := h.recordEvents()
	h.mustOstset("up", "-f", file, "--timeout", "90s")
	evs := stop()
	for ord := range 2 {
		want := "ordinal " + string(rune('0'+ord)) + " of " + h.set + " as " + h.name(ord)
		if got := h.docker("exec", h.name(ord), "/web", "cat", "/data/seed"); got != want {
			t.Errorf("%s reads %q from its volume, want %q", h.name(ord), got, want)
		}
	}
	if names := h.initNames(); len(names) != 0 {
		t.Errorf("init containers left after the rollout: %v", names)
	}
	seed, check := func(ord int) string { return h.name(ord) + "-init-seed" }, func(ord int) string { return h.name(ord) + "-init-check" }
	for ord := range 2 {
		before(t, evs, event{"die", seed(ord)}, event{"create", check(ord)})
		before(t, evs, event{"die", check(ord)}, event{"create", h.name(ord)})
		before(t, evs, event{"start", h.name(ord)}, event{"destroy", check(ord)})
	}
	before(t, evs, event{readyEvent, h.name(0)}, event{"create", seed(1)})

	stop = h.recordEvents()
	h.docker("restart", "-t", "2", h.name(1))
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	for _, e := range stop() {
		if e.Action == "create" && strings.Contains(e.Name, "-init-") {
			t.Errorf("a Docker restart of the replica ran an init container: %v", e)
		}
	}
}

// A failing init container halts OrderedReady: the replica is not created, nor
// the next ordinal. describe, get -o wide, status, events and logs --init report
// it with its exit code and output; a fixed template heals the set.
func TestFailingInitContainer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	failing := h.writeInitSpec("2", `    - name: fail
      image: {{IMAGE}}
      command: ["/web", "cat", "/nonexistent"]`)
	r := h.ostset("up", "-f", failing, "--timeout", "15s")
	if r.code != 3 || !strings.Contains(r.stdout, "init container fail exited with code 1") {
		t.Fatalf("up with a failing init container: want exit 3 and the wait for it, got %s", r)
	}
	initName := h.name(0) + "-init-fail"
	if code := h.awaitExited(initName); code != 1 {
		t.Fatalf("%s exited with %d, want 1", initName, code)
	}
	for _, name := range []string{h.name(0), h.name(1), h.name(1) + "-init-fail"} {
		if h.exists(name) {
			t.Errorf("%s exists while %s fails", name, initName)
		}
	}

	c := h.inspect(initName)
	l := c.Config.Labels
	if c.Config.Hostname != h.name(0) || l["io.ostset.set"] != h.set || l["io.ostset.ordinal"] != "0" || l["io.ostset.init"] != "fail" ||
		!strings.HasPrefix(l["io.ostset.revision"], h.set+"-") || l["io.ostset.owner"] == "" {
		t.Errorf("%s: hostname %q, labels %v", initName, c.Config.Hostname, l)
	}
	for _, alias := range c.NetworkSettings.Networks[h.network].Aliases {
		if alias == h.name(0)+".svc-"+h.set || alias == "svc-"+h.set {
			t.Errorf("%s has the replica's alias %s", initName, alias)
		}
	}
	if hasVolume := slices.ContainsFunc(c.Mounts, func(m struct{ Type, Name, Destination string }) bool {
		return m.Name == "data-"+h.name(0) && m.Destination == "/data"
	}); !hasVolume {
		t.Errorf("%s lacks the replica's volume: %+v", initName, c.Mounts)
	}

	const output = "no such file or directory"
	failure := "init container fail (" + initName + ") exited with code 1"
	if r := h.mustOstset("describe", h.set); !strings.Contains(r.stdout, failure) || !strings.Contains(r.stdout, output) {
		t.Errorf("describe does not report the failure:\n%s", r.stdout)
	}
	if r := h.mustOstset("get", h.set, "-o", "wide"); !strings.Contains(r.stdout, "Init:ExitCode:1") ||
		!strings.Contains(r.stdout, failure) || !strings.Contains(r.stdout, output) {
		t.Errorf("get -o wide does not report the failure:\n%s", r.stdout)
	}
	if r := h.mustOstset("events", h.set); !strings.Contains(r.stdout, failure) || !strings.Contains(r.stdout, output) {
		t.Errorf("events do not report the failure:\n%s", r.stdout)
	}
	var status struct {
		ReadyReplicas int
		Containers    []any
		Initializing  []struct {
			Replica, Init string
			State         string
			ExitCode      int
		}
	}
	if err := json.Unmarshal([]byte(h.mustOstset("status", h.set, "-o", "json").stdout), &status); err != nil {
		t.Fatal(err)
	}
	if status.ReadyReplicas != 0 || len(status.Containers) != 0 || len(status.Initializing) != 1 ||
		status.Initializing[0].ExitCode != 1 || status.Initializing[0].State != "failed" || status.Initializing[0].Init != "fail" {
		t.Errorf("status: %+v", status)
	}

	r = h.mustOstset("logs", h.name(0), "--init", "fail")
	if lines := nonEmptyLines(r.stdout); len(lines) == 0 || !containsLine(lines, initName+" | ", output) {
		t.Errorf("logs --init fail: %s", r)
	}
	for _, args := range [][]string{{"logs", h.set, "--init", "fail"}, {"logs", h.name(0), "--init", "nope"}} {
		if r := h.ostset(args...); r.code != 2 {
			t.Errorf("ostset %v: want exit 2, got %s", args, r)
		}
	}

	fixed := h.writeInitSpec("2", `    - name: fail
      image: {{IMAGE}}
      command: ["/web", "write", "/data/fixed", "yes"]`)
	h.mustOstset("up", "-f", fixed, "--timeout", "90s")
	if names := h.replicaNames(); !sameSet(names, []string{h.name(0), h.name(1)}) {
		t.Errorf("after the fix: containers %v", names)
	}
	if got := h.docker("exec", h.name(1), "/web", "cat", "/data/fixed"); got != "yes" {
		t.Errorf("%s reads %q", h.name(1), got)
	}
}

// An ostset killed while an init container runs leaves it running; the next
// process waits for it rather than starting the replica, and goes on once it
// succeeded.
func TestKilledDuringInitContainerResumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeInitSpec("1", `    - name: wait
      image: {{IMAGE}}
      command: ["/web", "sleep"]
    - name: mark
      image: {{IMAGE}}
      command: ["/web", "write", "/data/mark", "after wait"]`)
	waitName := h.name(0) + "-init-wait"

	cmd, _ := h.started("init container wait running", "up", "-f", file)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	id := h.docker("inspect", "-f", "{{.Id}} {{.State.Status}}", waitName)
	if !strings.HasSuffix(id, " running") || h.exists(h.name(0)) {
		t.Fatalf("after the kill: %s is %q, replica exists %v", waitName, id, h.exists(h.name(0)))
	}

	if r := h.ostset("reconcile", h.set, "--timeout", "3s"); r.code != 3 || !strings.Contains(r.stdout+r.stderr, "init container wait running") {
		t.Errorf("reconcile while the init container runs: want exit 3 waiting for it, got %s", r)
	}
	if h.exists(h.name(0)) || h.docker("inspect", "-f", "{{.Id}} {{.State.Status}}", waitName) != id {
		t.Fatalf("the next process started the replica or replaced the running init container")
	}

	h.docker("kill", "-s", "TERM", waitName) // /web sleep exits 0 on SIGTERM
	if code := h.awaitExited(waitName); code != 0 {
		t.Fatalf("%s exited with %d", waitName, code)
	}
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if got := h.docker("exec", h.name(0), "/web", "cat", "/data/mark"); got != "after wait" {
		t.Errorf("%s reads %q from the second init container", h.name(0), got)
	}
	if names := h.initNames(); len(names) != 0 {
		t.Errorf("init containers left: %v", names)
	}
}

// down removes init containers with the replicas: they carry the set's labels.
func TestDownRemovesInitContainers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeInitSpec("1", `    - name: wait
      image: {{IMAGE}}
      command: ["/web", "sleep"]`)
	if r := h.ostset("up", "-f", file, "--timeout", "5s"); r.code != 3 {
		t.Fatalf("up with an init container that never ends: want exit 3, got %s", r)
	}
	if names := h.initNames(); !slices.Equal(names, []string{h.name(0) + "-init-wait"}) {
		t.Fatalf("init containers %v", names)
	}
	h.mustOstset("down", h.set)
	if names := h.dockerLines("ps", "-a", "--filter", "label=io.ostset.set="+h.set, "--format", "{{.Names}}"); len(names) != 0 {
		t.Errorf("containers left after down: %v", names)
	}
}

// up pulls an init container's image per its policy, with progress, and a
// missing one is invalid input naming the init container's field.
func TestUpPullsInitContainerImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := startRegistry(t, "", "")
	h.noCredentials()
	ref, id := h.pushImage(reg, "init", "init")
	file := h.writeInitSpec("1", `    - name: seed
      image: `+ref+`
      command: ["/web", "write", "/data/seed", "pulled"]`)
	r := h.mustOstset("up", "-f", file, "--timeout", "90s")
	if !strings.Contains(r.stdout, h.set+": pulling "+ref+"\n") || !strings.Contains(r.stdout, h.set+": pulled "+ref+" (") {
		t.Errorf("up does not show the pull of the init container's image:\n%s", r.stdout)
	}
	if got := h.localImageID(ref); got != id {
		t.Errorf("%s is %q locally, want %s", ref, got, id)
	}
	if got := h.docker("exec", h.name(0), "/web", "cat", "/data/seed"); got != "pulled" {
		t.Errorf("%s reads %q", h.name(0), got)
	}

	missing := h.writeInitSpec("1", `    - name: seed
      image: `+reg.addr+"/"+h.set+`/web:missing
      command: ["/web", "write", "/data/seed", "pulled"]`)
	r = h.ostset("up", "-f", missing)
	if r.code != 2 || !strings.Contains(r.stderr, "template.initContainers[0].image: ") || !strings.Contains(r.stderr, "manifest unknown") {
		t.Errorf("a missing init container image: want exit 2 naming the field and the registry's words, got %s", r)
	}
}
