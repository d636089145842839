//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cxRedisImage = "ostset-test/redis:7"

// cxProject writes a compose file from tmpl ({{PROJECT}} filled in) and
// returns a harness whose cleanup downs the project and removes the networks
// ostset made for it.
func cxProject(t *testing.T, tmpl string) (h *harness, project, file string) {
	t.Helper()
	h, project = projectHarness(t, "cx", cxRedisImage)
	file = filepath.Join(h.dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(tmpl, "{{PROJECT}}", project)), 0o644); err != nil {
		t.Fatal(err)
	}
	return h, project, file
}

// cxNetworks: db is on two networks with an alias on each; web is on front
// only, worker on back only.
const cxNetworks = `
name: {{PROJECT}}
services:
  db:
    image: ostset-test/redis:7
    command: ["redis-server", "--protected-mode", "no"]
    deploy: {replicas: 2}
    networks:
      front: {aliases: [store-front]}
      back: {aliases: [store-back]}
  web:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    networks: [front]
  worker:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    networks: [back]
networks:
  front: {}
  back: {}
`

// A service on two networks is reached by name from a service on each, by
// its per-ordinal and service names; each network's alias answers on that
// network only. A second up changes nothing.
func TestCxComposeTwoNetworks(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxNetworks)
	h.mustOstset("up", "-f", file, "--timeout", "2m")
	for client, alias := range map[string]string{project + "-web-0": "store-front", project + "-worker-0": "store-back"} {
		for _, host := range []string{"db-0", "db-1.db", "db", alias, project + "-db-1"} {
			if got := h.exec(client, "redis-cli", "-h", host, "ping"); got != "PONG" {
				t.Errorf("%s reaching %s: %q, want PONG", client, host, got)
			}
		}
	}
	if out, err := h.tryDocker("exec", project+"-web-0", "getent", "hosts", "store-back"); err == nil {
		t.Errorf("web (on front only) resolves back's alias store-back: %s", out)
	}
	if out, err := h.tryDocker("exec", project+"-worker-0", "getent", "hosts", "store-front"); err == nil {
		t.Errorf("worker (on back only) resolves front's alias store-front: %s", out)
	}
	nets := h.docker("inspect", "-f", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", project+"-db-1")
	if want := project + "_back " + project + "_front"; strings.TrimSpace(nets) != want {
		t.Errorf("db-1 on networks %q, want %q", nets, want)
	}
	r := h.mustOstset("up", "-f", file, "--timeout", "2m")
	if strings.Contains(r.stdout, "created") || strings.Contains(r.stdout, "removed") {
		t.Errorf("a second up changed replicas:\n%s", r.stdout)
	}
}

// cxJob: migrate appends a line to a shared volume each time it runs; app has
// three replicas that wait for it to complete.
const cxJob = `
name: {{PROJECT}}
services:
  migrate:
    image: ostset-test/debian:bookworm
    entrypoint: ["sh", "-c", "echo ran >> /shared/runs"]
    volumes: [shared:/shared]
  app:
    image: ostset-test/debian:bookworm
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    deploy: {replicas: 3}
    volumes: [shared:/shared]
    depends_on:
      migrate: {condition: service_completed_successfully}
volumes:
  shared:
`

// A service waited for with service_completed_successfully runs once per up,
// before its dependents, however many replicas they have; a scale-up does
// not run it again, a second up does, and a failing run stops the up.
func TestCxComposeCompletedOncePerUp(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxJob)
	t.Cleanup(func() { // before cxProject's: the volume goes once the replicas are gone
		h.ostset("down", "-p", project)
		h.dockerQuiet("volume", "rm", project+"_shared")
	})
	r := h.mustOstset("up", "-f", file, "--timeout", "2m")
	ran, created := strings.Index(r.stdout, project+"-migrate: completed"), strings.Index(r.stdout, project+"-app: created")
	if ran < 0 || created < ran {
		t.Errorf("migrate did not complete before app was created:\n%s", r.stdout)
	}
	runs := func() string { return h.exec(project+"-app-0", "cat", "/shared/runs") }
	if got := runs(); got != "ran" {
		t.Errorf("after one up with 3 replicas, migrate ran %q, want once", got)
	}
	if h.exists(project + "-migrate-0") {
		t.Errorf("the finished job's container is left")
	}
	h.mustOstset("scale", project+"-app", "--replicas", "4", "--timeout", "2m")
	if got := runs(); got != "ran" {
		t.Errorf("after a scale-up, migrate ran %q, want once", got)
	}
	h.mustOstset("up", "-f", file, "--timeout", "2m")
	if got := runs(); got != "ran\nran" {
		t.Errorf("after a second up, migrate ran %q, want twice", got)
	}
	failing := strings.Replace(cxJob, "echo ran >> /shared/runs", "echo migration failed; exit 3", 1)
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(failing, "{{PROJECT}}", project)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = h.ostset("up", "-f", file, "--timeout", "2m")
	if r.code != 1 || !strings.Contains(r.stderr, "exited with code 3") || !strings.Contains(r.stderr, "migration failed") {
		t.Errorf("up with a failing job: exit %d, stderr %s", r.code, r.stderr)
	}
}

const cxStartInterval = `
name: {{PROJECT}}
services:
  db:
    image: ostset-test/debian:bookworm
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    healthcheck:
      test: ["CMD", "true"]
      interval: 1s
      start_period: 10s
      start_interval: 500ms
`

// healthcheck.start_interval on an engine below API 1.44 (which would drop
// it without a word) is listed with the reason, an error unless --lenient;
// in a set file it is an error naming its line.
func TestCxStartIntervalOnAnOldEngine(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxStartInterval)
	if v := h.docker("version", "-f", "{{.Server.APIVersion}}"); v != "1.41" {
		t.Skipf("the engine speaks API %s; this test is for one below 1.44", v)
	}
	r := h.ostset("up", "-f", file, "--timeout", "1m")
	if r.code != 2 || !strings.Contains(r.stderr, "services.db.healthcheck.start_interval: the engine API has it from 1.44 (Docker 25), this engine speaks 1.41") {
		t.Errorf("up: %s", r)
	}
	r = h.mustOstset("up", "-f", file, "--lenient", "--timeout", "1m")
	if !strings.Contains(r.stderr, "start_interval") || !strings.Contains(r.stderr, "(ignored)") {
		t.Errorf("up --lenient did not warn:\n%s", r)
	}
	set := filepath.Join(h.dir, "set.yaml")
	spec := "name: " + project + "-si\ntemplate:\n  image: ostset-test/debian:bookworm\n  healthcheck:\n    test: [CMD, 'true']\n    startInterval: 1s\n"
	if err := os.WriteFile(set, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	r = h.ostset("up", "-f", set, "--timeout", "1m")
	if r.code != 2 || !strings.Contains(r.stderr, "set.yaml:6: template.healthcheck.startInterval: healthcheck start interval needs the engine API 1.44 (Docker 25); this engine speaks 1.41") {
		t.Errorf("up of a set file with startInterval: %s", r)
	}
}

// A build: whose FROM is on a registry that needs credentials pulls its base
// image with those of the Docker config, as docker build does.
func TestCxComposeBuildPullsWithCredentials(t *testing.T) {
	t.Parallel()
	h := newHarnessPrefix(t, "cx")
	reg := startRegistry(t, "cx", "cx-secret")
	base, _ := h.pushImage(reg, "base", "a")
	h.env = append(h.env, "DOCKER_CONFIG="+reg.config)
	project := h.set
	t.Cleanup(func() { // before the harness's own cleanup, which removes the images by label
		h.ostset("down", "-p", project)
		h.dockerQuiet("image", "rm", project+"-app")
	})
	ctxDir := filepath.Join(h.dir, "app")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ctxDir, "Dockerfile"), "FROM "+base+"\nLABEL io.ostset.test.built=yes\n")
	file := filepath.Join(h.dir, "compose.yaml")
	writeFile(t, file, "name: "+project+"\nservices:\n  app:\n    build: ./app\n")
	r := h.mustOstset("up", "-f", file, "--timeout", "2m")
	if !strings.Contains(r.stdout, project+"-app: built "+project+"-app") {
		t.Errorf("up did not build the image:\n%s", r)
	}
	if got := h.docker("inspect", "-f", `{{index .Config.Labels "io.ostset.test.built"}}`, project+"-app-0"); got != "yes" {
		t.Errorf("replica runs an image labelled %q, want the built one", got)
	}
}
