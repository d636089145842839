//go:build integration

package integration

import (
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newPfHarness is a harness whose set name starts with pf.
func newPfHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.set = "pf" + h.set[2:]
	h.network = h.set + "-net"
	return h
}

const portSpec = `
name: {{SET}}
replicas: {{N}}
network: {{NET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  ports:
    - {containerPort: 8080, hostPort: {{PORT}}}
`

// lineOf is "FILE:LINE" of the first line of the file that holds s.
func lineOf(t *testing.T, file, s string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, s) {
			return fmt.Sprintf("%s:%d", file, i+1)
		}
	}
	t.Fatalf("%s has no line with %q", file, s)
	return ""
}

func (h *harness) noContainers() {
	h.t.Helper()
	if ids := h.dockerLines("ps", "-aq", "--filter", "label=io.ostset.set="+h.set); len(ids) > 0 {
		h.t.Errorf("containers of %s were created: %v", h.set, ids)
	}
}

// A host port that a container outside ostset holds is reported before
// anything is done, with the file line and the holder's name (exit 2). Taken
// after up stored the set, it ends the wait at once with the engine's words
// and the holder (exit 1), get shows the replica that cannot start with why,
// and once the port is free the set completes.
func TestPortHeldByForeignContainer(t *testing.T) {
	t.Parallel()
	h := newPfHarness(t)
	holder := h.set + "-holder"
	hold := func() {
		h.docker("run", "-d", "--name", holder, "--label", "io.ostset.test="+h.set, "-p", "21441:8080", imageV1)
	}
	hold()
	file := h.writeSpec(portSpec, imageV1, "{{N}}", "2", "{{PORT}}", "21440")
	r := h.ostset("up", "-f", file, "--timeout", "2m")
	want := lineOf(t, file, "hostPort") + ": template.ports[0].hostPort: host port 21441 (for " + h.name(1) + ") is already held by container " + holder
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("up with a held port: %s\nwant exit 2 and %q", r, want)
	}
	h.noContainers()

	h.docker("rm", "-f", holder)
	h.mustOstset("up", "-f", file, "--wait=false")
	hold()
	start := time.Now()
	r = h.ostset("reconcile", h.set, "--timeout", "2m")
	if r.code != 1 || !strings.Contains(r.stderr, "port is already allocated") || !strings.Contains(r.stderr, "held by container "+holder) {
		t.Fatalf("reconcile with the port taken: %s\nwant exit 1 with the engine's words and the holder", r)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("the permanent error was reported after %s", took)
	}
	get := h.mustOstset("get", h.set)
	if !strings.Contains(get.stdout, h.name(1)) || !strings.Contains(get.stdout, "failed") || !strings.Contains(get.stdout, "port is already allocated") {
		t.Errorf("get does not show %s that cannot start:\n%s", h.name(1), get)
	}

	h.docker("rm", "-f", holder)
	h.mustOstset("reconcile", h.set, "--timeout", "2m")
	if get := h.mustOstset("get", h.set); strings.Contains(get.stdout, "failed") {
		t.Errorf("get after the port was freed:\n%s", get)
	}
}

// Host ports of another set are reported before anything is done, naming the
// set's container, also for the ordinals a scale-up adds; a set that runs
// holds its own ports, so an up of it unchanged passes.
func TestPortHeldByAnotherSet(t *testing.T) {
	t.Parallel()
	a := newPfHarness(t)
	b := newPfHarness(t)
	b.stateDir = a.stateDir
	fileA := a.writeSpec(portSpec, imageV1, "{{N}}", "2", "{{PORT}}", "21450")
	a.mustOstset("up", "-f", fileA, "--timeout", "2m")
	if r := a.mustOstset("up", "-f", fileA, "--timeout", "2m"); !strings.Contains(r.stdout, "unchanged") {
		t.Errorf("up of the unchanged set: %s", r)
	}

	fileB := b.writeSpec(portSpec, imageV1, "{{N}}", "1", "{{PORT}}", "21451")
	r := b.ostset("up", "-f", fileB, "--timeout", "2m")
	want := lineOf(t, fileB, "hostPort") + ": template.ports[0].hostPort: host port 21451 (for " + b.name(0) + ") is already held by container " + a.name(1) + " of set " + a.set
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("up on another set's port: %s\nwant exit 2 and %q", r, want)
	}
	b.noContainers()

	b.writeSpec(portSpec, imageV1, "{{N}}", "1", "{{PORT}}", "21453")
	b.mustOstset("up", "-f", fileB, "--timeout", "2m")
	r = a.ostset("scale", a.set, "--replicas", "4", "--timeout", "2m")
	// The stored set knows the line of its document, not of its fields.
	want = "scale " + a.set + " --replicas 4: " + lineOf(t, fileA, "name:") + ": template.ports[0].hostPort: host port 21453 (for " + a.name(3) + ") is already held by container " + b.name(0) + " of set " + b.set
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("scale onto another set's port: %s\nwant exit 2 and %q", r, want)
	}
	if n := len(a.dockerLines("ps", "-aq", "--filter", "label=io.ostset.set="+a.set)); n != 2 {
		t.Errorf("%d containers of %s after the refused scale, want 2", n, a.set)
	}
}

// settingsFree is a set file that ends in its template, for a test to add
// one setting.
const settingsFree = `
name: {{SET}}
network: {{NET}}
template:
  image: {{IMAGE}}
`

// A bind source that does not exist is reported before anything is done.
func TestMissingBindSource(t *testing.T) {
	t.Parallel()
	h := newPfHarness(t)
	file := h.writeSpec(settingsFree+"  volumeMounts:\n    - {source: /nonexistent-{{SET}}, target: /conf}\n", imageV1)
	r := h.ostset("up", "-f", file, "--timeout", "2m")
	want := lineOf(t, file, "/nonexistent-") + ": template.volumeMounts[0].source: bind source /nonexistent-" + h.set + " does not exist"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("up with a missing bind source: %s\nwant exit 2 and %q", r, want)
	}
	h.noContainers()
}

// engineNofile is the hard nofile limit of the engine's process, as read by
// hand (docker info does not show it), or 0 when it cannot be read.
func engineNofile() int {
	pid, err := os.ReadFile("/var/run/docker.pid")
	if err != nil {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/limits")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
	}
	return 0
}

// A ulimit above the engine's own hard limit is reported before anything is
// done, with the limit to use instead.
func TestUlimitOverEngineLimit(t *testing.T) {
	t.Parallel()
	most := engineNofile()
	if most == 0 || most >= 65536 {
		t.Skipf("the engine's nofile hard limit (%d) is unknown or allows 65536", most)
	}
	h := newPfHarness(t)
	file := h.writeSpec(settingsFree+"  ulimits:\n    nofile: 65536\n", imageV1)
	r := h.ostset("up", "-f", file, "--timeout", "2m")
	want := fmt.Sprintf("%s: template.ulimits.nofile: hard limit 65536 is above the engine's own hard limit of %d", lineOf(t, file, "nofile:"), most)
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("up with nofile 65536: %s\nwant exit 2 and %q", r, want)
	}
	h.noContainers()
}

// A rollback to a template with other host ports is checked as an up is.
func TestRollbackOntoAHeldPort(t *testing.T) {
	t.Parallel()
	h := newPfHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(portSpec, imageV1, "{{N}}", "1", "{{PORT}}", "21460"), "--timeout", "2m")
	h.mustOstset("up", "-f", h.writeSpec(portSpec, imageV1, "{{N}}", "1", "{{PORT}}", "21462"), "--timeout", "2m")
	holder := h.set + "-holder"
	h.docker("run", "-d", "--name", holder, "--label", "io.ostset.test="+h.set, "-p", "21460:8080", imageV1)
	r := h.ostset("rollout", "undo", h.set, "--timeout", "2m")
	want := "rollout undo " + h.set + ": "
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "host port 21460 (for "+h.name(0)+") is already held by container "+holder) {
		t.Fatalf("undo onto a held port: %s", r)
	}
	if hist := h.mustOstset("rollout", "history", h.set); strings.Count(hist.stdout, "ostset up") != 2 || strings.Contains(hist.stdout, "undo") {
		t.Errorf("the refused undo changed the history:\n%s", hist)
	}
}

// A hostPort shifted down by less than the replica count is refused before
// anything changes (exit 2, with what to do): the rolling update would remove
// the highest replica, whose new port the lowest still holds, and wait for
// ever. Shifted up by one, it rolls to the end: the highest replica goes
// first and frees the port the lowest moves to.
func TestUpRefusesAPortShiftTheRolloutCannotFinish(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	base := freePortRange(t, 4)
	spec := func(port int) string {
		s := daemonSpec(2) + fmt.Sprintf("  ports:\n    - {containerPort: 8080, hostPort: %d}\n", port)
		s = strings.Replace(s, "volumeClaimTemplates:", "", 1)
		return strings.Replace(s, "  - name: data\n    mountPath: /data\n", "", 1)
	}
	h.mustOstset("up", "-f", h.writeSpec(spec(base+1), imageV1))
	before := h.ids()
	file := h.writeSpec(spec(base), imageV1)
	r := h.ostset("up", "-f", file, "--timeout", "60s")
	want := lineOf(t, file, "hostPort") + fmt.Sprintf(": template.ports[0].hostPort: host port %d (for %s) is held by %s of this set, which the update would replace only after %s: "+
		"shift hostPort by at least the replica count (2) or upwards, or scale the set to 0 first and then apply the change", base+1, h.name(1), h.name(0), h.name(1))
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("shift down by one: want exit 2 and\n%s\ngot %s", want, r)
	}
	if after := h.ids(); !maps.Equal(before, after) {
		t.Fatalf("the refused change touched the replicas: %v, then %v", before, after)
	}
	h.mustOstset("up", "-f", h.writeSpec(spec(base+2), imageV1), "--timeout", "90s")
	for ord := range 2 {
		if got := h.docker("port", h.name(ord), "8080/tcp"); !strings.Contains(got, fmt.Sprintf(":%d", base+2+ord)) {
			t.Errorf("%s publishes %q, want port %d", h.name(ord), got, base+2+ord)
		}
	}
}
