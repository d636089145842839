//go:build integration

package integration

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// composePostgres is a compose project: a Postgres primary and a standby
// (x-ostset, a volume per ordinal; the standby clones db-0.db when its volume
// is new) and an app that waits for the database with service_healthy.
const composePostgres = `
name: {{PROJECT}}
services:
  db:
    image: ostset-test/postgres:15
    environment:
      POSTGRES_PASSWORD: ostset
    entrypoint:
      - sh
      - -ec
      - |
        if [ "$$OSTSET_ORDINAL" != 0 ] && [ ! -s "$$PGDATA/PG_VERSION" ]; then
          mkdir -p "$$PGDATA" && chown postgres:postgres "$$PGDATA" && chmod 700 "$$PGDATA"
          until pg_isready -q -h db-0.db -U postgres; do sleep 1; done
          PGPASSWORD=ostset setpriv --reuid=postgres --regid=postgres --init-groups pg_basebackup -h db-0.db -U postgres -D "$$PGDATA" -R -X stream -c fast
        fi
        exec docker-entrypoint.sh postgres
    volumes:
      - ./initdb:/docker-entrypoint-initdb.d:ro
      - data:/var/lib/postgresql
    healthcheck:
      test: ["CMD", "pg_isready", "-U", "postgres", "-h", "127.0.0.1"]
      interval: 1s
      timeout: 2s
      retries: 5
    stop_grace_period: 30s
    deploy:
      replicas: 2
    x-ostset:
      podManagementPolicy: OrderedReady
      volumeClaimTemplates:
        - name: data
  app:
    image: ostset-test/postgres:15
    entrypoint: ["sleep", "infinity"]
    environment:
      PGPASSWORD: ostset
    stop_grace_period: 1s
    depends_on:
      db:
        condition: service_healthy
volumes:
  data:
`

func composeHarness(t *testing.T) (h *harness, project, file string) {
	t.Helper()
	h, project = projectHarness(t, "cp", postgresImage)
	if err := os.MkdirAll(filepath.Join(h.dir, "initdb"), 0o755); err != nil {
		t.Fatal(err)
	}
	initdb, err := os.ReadFile(example("postgres", "initdb/10-replication.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "initdb", "10-replication.sh"), initdb, 0o644); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(h.dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(composePostgres, "{{PROJECT}}", project)), 0o644); err != nil {
		t.Fatal(err)
	}
	return h, project, file
}

// A compose project runs with StatefulSet semantics: the standby streams from
// db-0.db, the app is created only once every db replica is ready and reaches
// the database by its per-ordinal and service names, and down then up keeps
// the data.
func TestComposePostgresProject(t *testing.T) {
	t.Parallel()
	h, project, file := composeHarness(t)
	db, app := project+"-db", project+"-app"
	r := h.mustOstset("up", "-f", file, "--timeout", "4m")
	wait := strings.Index(r.stdout, app+": waiting for "+db+" (service_healthy)")
	created := strings.Index(r.stdout, app+": created")
	ready := strings.LastIndex(r.stdout, db+"-1")
	if wait < 0 || created < wait || ready > created {
		t.Errorf("app created before the database was ready:\n%s", r.stdout)
	}
	if got := h.exec(db+"-1", "psql", "-U", "postgres", "-Atc", "select pg_is_in_recovery()"); got != "t" {
		t.Errorf("%s-1 in recovery: %q, want t (a standby)", db, got)
	}
	h.exec(db+"-0", "psql", "-U", "postgres", "-c", "create table kept (x int); insert into kept values (42)")
	for _, host := range []string{"db-0.db", "db-0", "db"} {
		if got := h.exec(app+"-0", "psql", "-h", host, "-U", "postgres", "-Atc", "select 1"); got != "1" {
			t.Errorf("app reaching %s: %q", host, got)
		}
	}

	h.mustOstset("down", "-p", project)
	if h.exists(db+"-0") || h.exists(app+"-0") {
		t.Fatalf("down -p left containers")
	}
	h.mustOstset("up", "-f", file, "--timeout", "4m")
	if got := h.exec(db+"-0", "psql", "-U", "postgres", "-Atc", "select x from kept"); got != "42" {
		t.Errorf("primary after down and up: %q, want 42", got)
	}
	if got := h.exec(app+"-0", "psql", "-h", "db-1.db", "-U", "postgres", "-Atc", "select pg_is_in_recovery()"); got != "t" {
		t.Errorf("db-1 after down and up in recovery: %q, want t", got)
	}
}

// A service with build: is built through the engine's build API before its
// set is applied, with the context less what .dockerignore excludes; a second
// up reuses the image, and --build builds it again.
func TestComposeBuild(t *testing.T) {
	t.Parallel()
	h, project, _ := composeHarness(t)
	t.Cleanup(func() { // before the harness's own cleanup: the image goes once its containers are gone
		h.ostset("down", "-p", project, "--volumes")
		h.dockerQuiet("image", "rm", project+"-app")
	})
	ctxDir := filepath.Join(h.dir, "app")
	files := map[string]string{
		"Dockerfile":    "FROM ostset-test/debian:bookworm\nARG GREETING\nCOPY . /ctx/\nRUN echo \"$GREETING\" > /greeting\nCMD [\"sleep\", \"infinity\"]\n",
		".dockerignore": "secret.txt\n",
		"hello.txt":     "hello\n",
		"secret.txt":    "not sent\n",
	}
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(ctxDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(h.dir, "build.yaml")
	spec := "name: " + project + "\nservices:\n  app:\n    build:\n      context: ./app\n      args:\n        GREETING: hi\n    stop_grace_period: 1s\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.mustOstset("up", "-f", file, "--timeout", "2m")
	app := project + "-app"
	if !strings.Contains(r.stdout, app+": building "+project+"-app") || !strings.Contains(r.stdout, app+": built ") {
		t.Errorf("no build progress:\n%s", r.stdout)
	}
	if got := h.exec(app+"-0", "ls", "/ctx"); got != "Dockerfile\nhello.txt" {
		t.Errorf("context sent: %q, want Dockerfile and hello.txt (.dockerignore keeps the Dockerfile, drops secret.txt and itself)", got)
	}
	if got := h.exec(app+"-0", "cat", "/greeting"); got != "hi" {
		t.Errorf("build arg: %q", got)
	}
	if r := h.mustOstset("up", "-f", file, "--timeout", "2m"); strings.Contains(r.stdout, "building") {
		t.Errorf("a second up built again:\n%s", r.stdout)
	}
	if r := h.mustOstset("up", "-f", file, "--build", "--timeout", "2m"); !strings.Contains(r.stdout, "building") {
		t.Errorf("up --build did not build:\n%s", r.stdout)
	}
}

// projectHarness names a compose project (prefix and random hex) and takes
// down, at cleanup, its sets and volumes and any network of the project that
// a failed down left.
func projectHarness(t *testing.T, prefix, image string) (h *harness, project string) {
	t.Helper()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	project = prefix + hex.EncodeToString(b)
	h = exampleHarness(t, project+"-db", "UNUSED", image)
	t.Cleanup(func() {
		h.ostset("down", "-p", project, "--volumes")
		// down removes each network with its last set; this is for a down that failed.
		if ids := h.dockerLines("network", "ls", "-q", "--filter", "name=^"+project+"_", "--filter", "label=io.ostset.managed=true"); len(ids) > 0 {
			h.dockerQuiet(append([]string{"network", "rm"}, ids...)...)
		}
	})
	return h, project
}

// With the daemon running, an up whose service waits for another's health
// tells the other's rollout once: the final wait follows it from the end of
// the first, not again from before the change (the daemon's log replayed).
func TestComposeUpWithTheDaemonTellsEachRolloutOnce(t *testing.T) {
	t.Parallel()
	h, project := projectHarness(t, "cr", imageV1)
	h.startDaemon(nil, "--resync", "10m")
	file := filepath.Join(h.dir, "compose.yaml")
	text := `name: ` + project + `
services:
  db:
    image: ` + imageV1 + `
    deploy: {replicas: 2}
    healthcheck: {test: ["CMD", "/web", "health"], interval: 500ms}
    stop_grace_period: 1s
  app:
    image: ` + imageV1 + `
    stop_grace_period: 1s
    depends_on:
      db: {condition: service_healthy}
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.mustOstset("up", "-f", file, "--timeout", "90s")
	for _, line := range []string{project + "-db-0 created", project + "-db-1 created", project + "-db-0 ready", project + "-db-1 ready", project + "-app-0 created"} {
		if n := strings.Count(r.stdout, line+" "); n != 1 {
			t.Errorf("%q told %d times, want once:\n%s", line, n, r.stdout)
		}
	}
}
