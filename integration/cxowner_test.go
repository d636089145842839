//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// cxJobOverSet: project {{PROJECT}} whose db service is a job (app waits for
// it to complete), as the set file {{PROJECT}}-db is named.
const cxJobOverSet = `
name: {{PROJECT}}
services:
  db:
    image: ostset-test/redis:7
    entrypoint: ["true"]
  app:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    depends_on:
      db: {condition: service_completed_successfully}
`

// A compose job whose name is a stored set, a set file's or a set of the
// project that became a job, is refused with exit 2 before anything is done:
// the set's replicas are the same containers, still running.
func TestCxComposeJobNeverTouchesASet(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxJobOverSet)
	set := project + "-db"
	setFile := filepath.Join(h.dir, "db.yaml")
	writeFile(t, setFile, "name: "+set+"\nreplicas: 2\nterminationGracePeriodSeconds: 1\ntemplate:\n  image: ostset-test/redis:7\n")
	h.mustOstset("up", "-f", setFile, "--timeout", "2m")
	ids := h.docker("inspect", "-f", "{{.Id}} {{.State.Running}}", set+"-0", set+"-1")
	r := h.ostset("up", "-f", file, "--timeout", "2m")
	if r.code != 2 || !strings.Contains(r.stderr, "job "+set+" has the name of a stored set of set file "+setFile) {
		t.Errorf("a job named as a set file's set: %s", r)
	}
	if got := h.docker("inspect", "-f", "{{.Id}} {{.State.Running}}", set+"-0", set+"-1"); got != ids {
		t.Errorf("the set's replicas changed under a refused job:\n%s\nwere\n%s", got, ids)
	}
	if h.exists(project + "-app-0") {
		t.Errorf("the refused up created app")
	}
	h.mustOstset("down", set)

	// The project's own set db, then a file where db is a job.
	asSet := filepath.Join(h.dir, "set.yaml")
	writeFile(t, asSet, strings.ReplaceAll("name: {{PROJECT}}\nservices:\n  db:\n    image: ostset-test/redis:7\n    stop_grace_period: 1s\n", "{{PROJECT}}", project))
	h.mustOstset("up", "-f", asSet, "--timeout", "2m")
	id := h.docker("inspect", "-f", "{{.Id}}", set+"-0")
	r = h.ostset("up", "-f", file, "--timeout", "2m")
	if r.code != 2 || !strings.Contains(r.stderr, "ostset down "+set) {
		t.Errorf("a set of the project that became a job: %s", r)
	}
	if got := h.docker("inspect", "-f", "{{.Id}} {{with index .Config.Labels \"io.ostset.job\"}}{{.}}{{end}}", set+"-0"); got != id {
		t.Errorf("%s-0 is %q, want the set's replica %s", set, got, id)
	}
}

// Project P with service x-db and project P-x with service db both make set
// P-x-db: the second project, and a set file of that name, are refused
// (exit 2, both files named), and the first project's set keeps its
// container and image.
func TestCxComposeProjectsKeptApart(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, "name: {{PROJECT}}\nservices:\n  x-db:\n    image: ostset-test/redis:7\n    stop_grace_period: 1s\n")
	other := project + "-x"
	t.Cleanup(func() { h.ostset("down", "-p", other, "--volumes") })
	set := project + "-x-db"
	h.mustOstset("up", "-f", file, "--timeout", "2m")
	id := h.docker("inspect", "-f", "{{.Id}} {{.Config.Image}}", set+"-0")
	otherFile := filepath.Join(h.dir, "other.yaml")
	writeFile(t, otherFile, "name: "+other+"\nservices:\n  db:\n    image: ostset-test/debian:bookworm\n    entrypoint: [\"sleep\", \"infinity\"]\n")
	r := h.ostset("up", "-f", otherFile, "--timeout", "2m")
	if r.code != 2 || !strings.Contains(r.stderr, otherFile) || !strings.Contains(r.stderr, "compose project "+project+" ("+file) {
		t.Errorf("project %s over project %s's set: %s", other, project, r)
	}
	setFile := filepath.Join(h.dir, "db.yaml")
	writeFile(t, setFile, "name: "+set+"\nreplicas: 1\ntemplate:\n  image: ostset-test/debian:bookworm\n")
	r = h.ostset("up", "-f", setFile, "--timeout", "2m")
	if r.code != 2 || !strings.Contains(r.stderr, setFile) || !strings.Contains(r.stderr, file) {
		t.Errorf("a set file over project %s's set: %s", project, r)
	}
	if got := h.docker("inspect", "-f", "{{.Id}} {{.Config.Image}}", set+"-0"); got != id {
		t.Errorf("%s-0 is %q, was %q", set, got, id)
	}
	if r := h.mustOstset("down", "-p", project); !strings.Contains(r.stdout, set+": deleted") {
		t.Errorf("down -p %s: %s", project, r)
	}
}

// cxLongJob: a job that runs until it is stopped, and app waits for it.
const cxLongJob = `
name: {{PROJECT}}
services:
  migrate:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_signal: SIGKILL
  app:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    depends_on:
      migrate: {condition: service_completed_successfully}
`

// An up SIGKILLed while a job runs leaves the job's container (labelled a
// job's, not a replica's) and the project's network, and no set: down -p finds
// both by the project's label and removes them.
func TestCxComposeDownAfterKilledUp(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxLongJob)
	job, network := project+"-migrate-0", project+"_default"
	b := h.ostsetBackground("up", "-f", file, "--timeout", "2m")
	b.await(t, "the job running", func() bool {
		out, err := h.tryDocker("inspect", "-f", "{{.State.Running}}", job)
		return err == nil && out == "true"
	})
	_ = b.cmd.Process.Signal(syscall.SIGKILL)
	b.wait()
	if got := h.docker("inspect", "-f", "{{index .Config.Labels \"io.ostset.job\"}} {{index .Config.Labels \"ostset.compose.project\"}}", job); got != "true "+project {
		t.Errorf("the job's container labels: %q", got)
	}
	if got := h.docker("network", "inspect", "-f", "{{index .Labels \"ostset.compose.project\"}}", network); got != project {
		t.Errorf("network %s project label %q", network, got)
	}
	r := h.mustOstset("down", "-p", project)
	if !strings.Contains(r.stdout, "job container "+job+" removed") || !strings.Contains(r.stdout, "network "+network+" removed") {
		t.Errorf("down -p after a killed up:\n%s", r)
	}
	if h.exists(job) {
		t.Errorf("%s left", job)
	}
	if _, err := h.tryDocker("network", "inspect", network); err == nil {
		t.Errorf("network %s left", network)
	}
}

// A short bind mount's missing source directory is created, as compose
// creates it, and the replica writes into it.
func TestCxComposeShortBindCreated(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, "name: {{PROJECT}}\nservices:\n  web:\n    image: ostset-test/redis:7\n    entrypoint: [\"sleep\", \"infinity\"]\n    stop_grace_period: 1s\n    volumes: [\"./data/sub:/data\"]\n")
	dir := filepath.Join(h.dir, "data", "sub")
	r := h.mustOstset("up", "-f", file, "--timeout", "2m")
	if !strings.Contains(r.stdout, dir+": created") {
		t.Errorf("up did not say it created %s:\n%s", dir, r.stdout)
	}
	h.exec(project+"-web-0", "sh", "-c", "echo hi > /data/x")
	if data, err := os.ReadFile(filepath.Join(dir, "x")); err != nil || string(data) != "hi\n" {
		t.Errorf("the replica's /data is not %s: %q %v", dir, data, err)
	}
}
