//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ostset stop stops the replicas highest first and keeps the containers and
// their volumes; nothing heals the stopped set (a daemon's passes over it
// leave it, also after a replica is removed by hand, and reconcile follows), get, ls and describe say
// Stopped, and scale refuses it. ostset start (the daemon carrying it out)
// starts the same containers lowest first, each once the one below is ready,
// and creates the one removed.
func TestStopAndStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1), "--timeout", "3m")
	ids := map[int]string{}
	for i := range 3 {
		ids[i] = h.inspect(h.name(i)).ID
	}
	rec := h.recordEvents()
	if r := h.mustOstset("stop", h.set, "--timeout", "2m"); !strings.Contains(r.stdout, h.set+": stopped") {
		t.Fatalf("stop: %s", r)
	}
	evs := rec()
	before(t, evs, event{"die", h.name(2)}, event{"die", h.name(1)})
	before(t, evs, event{"die", h.name(1)}, event{"die", h.name(0)})
	for i := range 3 {
		if c := h.inspect(h.name(i)); c.ID != ids[i] || c.State.Status != "exited" {
			t.Fatalf("after stop, %s is %s %s, want the same container %s, exited", h.name(i), c.ID, c.State.Status, ids[i])
		}
	}

	d := h.startDaemon(nil, "--log-format", "json", "--log-level", "debug", "--resync", "10m")
	pass := `"msg":"pass","set":"` + h.set + `"`
	d.await(pass)
	passes := strings.Count(d.out.String(), pass)
	h.docker("rm", h.name(1))
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(d.out.String(), pass) == passes { // the daemon's answer to the destroy
		if time.Now().After(deadline) {
			t.Fatalf("the daemon made no pass after %s was removed:\n%s", h.name(1), d.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := h.mustOstset("reconcile", h.set, "--timeout", "1m"); !strings.Contains(r.stdout, h.set+": stopped") {
		t.Fatalf("reconcile of the stopped set: %s", r)
	}
	if h.exists(h.name(1)) || h.inspect(h.name(0)).State.Status != "exited" || h.inspect(h.name(2)).State.Status != "exited" {
		t.Fatalf("the daemon healed the stopped set: %v\n%s", h.replicaNames(), d.out)
	}
	h.docker("volume", "inspect", "data-"+h.name(1))
	get := h.mustOstset("get", h.set, "-o", "wide")
	if !strings.Contains(get.stdout, "Stopped") || !strings.Contains(get.stdout, "the set is stopped") {
		t.Fatalf("get %s: %s", h.set, get)
	}
	if r := h.mustOstset("get"); !strings.Contains(r.stdout, "(stopped)") {
		t.Fatalf("get: %s", r)
	}
	if r := h.mustOstset("ls"); !strings.Contains(r.stdout, h.set+"(stopped)") {
		t.Fatalf("ls: %s", r)
	}
	if r := h.mustOstset("describe", h.set); !strings.Contains(r.stdout, "Stopped:         true") {
		t.Fatalf("describe: %s", r)
	}
	if r := h.ostset("scale", h.set, "--replicas", "4"); r.code != 2 || !strings.Contains(r.stderr, "is stopped") {
		t.Fatalf("scale of a stopped set: %s", r)
	}

	rec = h.recordEvents()
	if r := h.mustOstset("start", h.set, "--timeout", "3m"); !strings.Contains(r.stdout, h.set+": started") {
		t.Fatalf("start: %s", r)
	}
	evs = rec()
	d.stop()
	// Readiness as ostset has it (readyEvent): its probe passing, or Docker's
	// healthy, whichever comes first.
	before(t, evs, event{"start", h.name(0)}, event{readyEvent, h.name(0)})
	before(t, evs, event{readyEvent, h.name(0)}, event{"create", h.name(1)})
	before(t, evs, event{readyEvent, h.name(1)}, event{"start", h.name(2)})
	for i := range 3 {
		c := h.inspect(h.name(i))
		if (c.ID == ids[i]) == (i == 1) || c.State.Status != "running" {
			t.Fatalf("after start, %s is %s (%s); before stop %s", h.name(i), c.ID, c.State.Status, ids[i])
		}
	}
	var st struct {
		ReadyReplicas int `json:"readyReplicas"`
	}
	if h.statusJSON(&st); st.ReadyReplicas != 3 {
		t.Fatalf("after start, %d replicas ready, want 3", st.ReadyReplicas)
	}
}

// get -p lists one compose project's sets; logs -l prints the replicas of
// every set whose labels match, each line prefixed with its replica's name.
func TestGetProjectAndLogsSelector(t *testing.T) {
	t.Parallel()
	h, project := projectHarness(t, "gl", imageV1)
	file := filepath.Join(h.dir, "compose.yaml")
	text := `name: ` + project + `
services:
  front:
    image: ` + imageV1 + `
    deploy: {replicas: 2}
    labels: {tier: web}
    stop_grace_period: 1s
  back:
    image: ` + imageV1 + `
    labels: {tier: api}
    stop_grace_period: 1s
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustOstset("up", "-f", file, "--timeout", "3m")
	solo := h.writeSpec(baseSpec, imageV1, "replicas: 3", "replicas: 1")
	h.mustOstset("up", "-f", solo, "--timeout", "3m")

	get := h.mustOstset("get", "-p", project)
	if !strings.Contains(get.stdout, project+"-front") || !strings.Contains(get.stdout, project+"-back") || strings.Contains(get.stdout, h.set+" ") {
		t.Fatalf("get -p %s: %s", project, get)
	}
	if r := h.ostset("get", "-p", "no"+project); r.code != 2 {
		t.Fatalf("get -p of no project: %s", r)
	}
	logs := h.mustOstset("logs", "-l", "tier=web", "--tail", "5")
	for _, want := range []string{project + "-front-0 | ", project + "-front-1 | "} {
		if !strings.Contains(logs.stdout, want) {
			t.Fatalf("logs -l tier=web lacks %q: %s", want, logs)
		}
	}
	if strings.Contains(logs.stdout, project+"-back-0") || strings.Contains(logs.stdout, h.set) {
		t.Fatalf("logs -l tier=web printed another set's lines: %s", logs)
	}
	if r := h.mustOstset("logs", "-l", "tier in (web,api)", "--since", "1h"); !strings.Contains(r.stdout, project+"-back-0 ") || !strings.Contains(r.stdout, "listening") {
		t.Fatalf("logs -l 'tier in (web,api)': %s", r)
	}
}
