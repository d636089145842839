package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"github.com/ostset/ostset/compose"
	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// composeCLI runs ostset commands on one state directory with an in-memory
// runtime that holds several sets.
type composeCLI struct {
	rt    *setsRuntime
	dir   string
	store state.Store
}

func newComposeCLI(t *testing.T) *composeCLI {
	dir := t.TempDir()
	return &composeCLI{rt: newSetsRuntime(), dir: dir, store: state.Store{Dir: dir}}
}

func (f *composeCLI) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errs bytes.Buffer
	root := newRootFor(&app{v: viper.New(), stdout: &out, stderr: &errs, engineRT: f.rt})
	root.SetArgs(append(args, "--state-dir", f.dir))
	err = root.ExecuteContext(ctx)
	return out.String(), errs.String(), err
}

const composeChain = `
name: demo
services:
  web:
    image: web:1
    depends_on:
      api: {condition: service_started}
  api:
    image: api:1
    deploy: {replicas: 2}
    depends_on:
      db: {condition: service_healthy, restart: true}
  db:
    image: db:1
    deploy: {replicas: 2}
    healthcheck: {test: ["CMD", "true"]}
    x-ostset: {podManagementPolicy: OrderedReady}
`

func writeCompose(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// up creates a set only once the sets it depends on have completed their
// rollouts: every replica of db exists before the first of api, and so on.
func TestComposeUpFollowsDependsOn(t *testing.T) {
	f := newComposeCLI(t)
	out, stderr, err := f.run(context.Background(), "up", "-f", writeCompose(t, composeChain))
	if err != nil {
		t.Fatalf("up: %v\n%s%s", err, out, stderr)
	}
	var order []string
	for _, c := range f.rt.Created {
		order = append(order, c.Name)
	}
	if got := strings.Join(order, " "); got != "demo-db-0 demo-db-1 demo-api-0 demo-api-1 demo-web-0" && got != "demo-db-0 demo-db-1 demo-api-1 demo-api-0 demo-web-0" {
		t.Errorf("created %s, want db's replicas, then api's, then web's", got)
	}
	for _, pair := range [][2]string{
		{"demo-db: rollout complete", "demo-api: created"},
		{"demo-api: rollout complete", "demo-web: created"},
	} {
		if a, b := strings.Index(out, pair[0]), strings.Index(out, pair[1]); a < 0 || b < a {
			t.Errorf("%q not before %q:\n%s", pair[0], pair[1], out)
		}
	}
	if !strings.Contains(out, "demo-api: waiting for demo-db (service_healthy)") {
		t.Errorf("no waiting line:\n%s", out)
	}
}

// A dependency rolled by up re-rolls the sets that depend on it with
// restart: true, and only those.
func TestComposeRestartTrueRerollsDependents(t *testing.T) {
	f := newComposeCLI(t)
	file := writeCompose(t, composeChain)
	if out, _, err := f.run(context.Background(), "up", "-f", file); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(composeChain, "image: db:1", "image: db:2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := len(f.rt.Created)
	out, stderr, err := f.run(context.Background(), "up", "-f", file)
	if err != nil {
		t.Fatalf("up: %v\n%s%s", err, out, stderr)
	}
	var again []string
	for _, c := range f.rt.Created[before:] {
		again = append(again, c.Name)
	}
	got := strings.Join(again, " ")
	if !strings.Contains(got, "demo-api-0") || !strings.Contains(got, "demo-api-1") || strings.Contains(got, "demo-web") {
		t.Errorf("replaced %s: want db's and api's replicas (restart: true), not web's\n%s", got, out)
	}
	if !strings.Contains(out, "demo-api: restarting after demo-db") {
		t.Errorf("no restart line:\n%s%s", out, stderr)
	}
}

// down -p deletes the project's sets, dependents first, and nothing else.
func TestComposeDownProject(t *testing.T) {
	f := newComposeCLI(t)
	if out, _, err := f.run(context.Background(), "up", "-f", writeCompose(t, composeChain)); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	other := writeCompose(t, "name: other\nservices:\n  db:\n    image: db:1\n")
	if out, _, err := f.run(context.Background(), "up", "-f", other); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	out, stderr, err := f.run(context.Background(), "down", "-p", "demo")
	if err != nil {
		t.Fatalf("down: %v\n%s%s", err, out, stderr)
	}
	web, api, db := strings.Index(out, "demo-web: deleted"), strings.Index(out, "demo-api: deleted"), strings.Index(out, "demo-db: deleted")
	if web < 0 || api < web || db < api {
		t.Errorf("down -p demo:\n%s\nwant web, then api, then db deleted", out)
	}
	names, _ := f.store.List()
	if strings.Join(names, " ") != "other-db" {
		t.Errorf("sets left: %v", names)
	}
	if out, _, err := f.run(context.Background(), "down", "-f", other); err != nil || !strings.HasSuffix(out, "other-db: deleted\n") {
		t.Errorf("down -f: %v %q", err, out)
	}
	if _, _, err := f.run(context.Background(), "down", "-p", "demo"); err == nil || !strings.Contains(err.Error(), `compose project "demo": unknown set`) {
		t.Errorf("down -p of a project with no set: %v", err)
	}
}

// A set of the project that no service makes any more is named, and left.
func TestComposeUpNamesOrphans(t *testing.T) {
	f := newComposeCLI(t)
	file := writeCompose(t, "name: demo\nservices:\n  a:\n    image: x\n  b:\n    image: x\n")
	if out, _, err := f.run(context.Background(), "up", "-f", file); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	if err := os.WriteFile(file, []byte("name: demo\nservices:\n  a:\n    image: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := f.run(context.Background(), "up", "-f", file)
	if err != nil || stderr != "warning: demo-b: a set of project demo that no service of the files makes; 'ostset down demo-b' deletes it\n" {
		t.Errorf("up: %v\n%s", err, stderr)
	}
	if names, _ := f.store.List(); len(names) != 2 {
		t.Errorf("sets %v: the orphan is left", names)
	}
}

// What ostset cannot map is an error, each field on its line, before
// anything is done; --lenient makes each a warning. Compose files and set
// files are not mixed.
func TestComposeUnmappedAndMixed(t *testing.T) {
	f := newComposeCLI(t)
	file := writeCompose(t, "name: demo\nservices:\n  web:\n    image: web:1\n    privileged: true\n    logging: {driver: syslog}\n")
	_, _, err := f.run(context.Background(), "up", "-f", file)
	want := file + ":5: services.web.privileged: not a setting ostset gives a replica\n" + file + ":6: services.web.logging: replicas log with the engine's default driver"
	if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), want) {
		t.Errorf("up: exit %d %v, want exit 2 and\n%s", exitCode(err), err, want)
	}
	if len(f.rt.Created) != 0 {
		t.Errorf("created %d replicas", len(f.rt.Created))
	}
	out, stderr, err := f.run(context.Background(), "up", "-f", file, "--lenient")
	if err != nil || !strings.Contains(stderr, "warning: "+file+":5: services.web.privileged: not a setting ostset gives a replica (ignored)") {
		t.Errorf("up --lenient: %v\n%s%s", err, out, stderr)
	}
	set := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(set, []byte("name: x\ntemplate: {image: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.run(context.Background(), "up", "-f", file, "-f", set); exitCode(err) != exitInvalid || !strings.Contains(err.Error(), "not mixed") {
		t.Errorf("mixed: %v", err)
	}
}

// convert writes a compose project as set files that load back as the same
// sets, or as Kubernetes manifests with per-ordinal claims.
func TestComposeConvert(t *testing.T) {
	f := newComposeCLI(t)
	src := composeChain + "    volumes: [data:/data]\n    x-ostset:\n      volumeClaimTemplates: [{name: data}]\nvolumes:\n  data: {}\n"
	src = strings.Replace(src, "    x-ostset: {podManagementPolicy: OrderedReady}\n", "", 1)
	file := writeCompose(t, src)
	out, stderr, err := f.run(context.Background(), "convert", "-f", file, "-o", "yaml")
	if err != nil {
		t.Fatalf("convert -o yaml: %v\n%s", err, stderr)
	}
	sets := filepath.Join(t.TempDir(), "sets.yaml")
	if err := os.WriteFile(sets, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := compose.Load(context.Background(), compose.Options{Files: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.Load(sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		want := p.Sets[i]
		want.ApplyDefaults()
		back[i].Source, back[i].Written, back[i].Lines = want.Source, nil, nil
		if !reflect.DeepEqual(back[i], want) {
			t.Errorf("set %d loads back as\n%+v\nwant\n%+v", i, back[i], want)
		}
	}
	out, _, err = f.run(context.Background(), "convert", "-f", file)
	if err != nil || !strings.Contains(out, "kind: StatefulSet") || !strings.Contains(out, "volumeClaimTemplates:") || !strings.Contains(out, "name: demo-db") {
		t.Errorf("convert -o kubernetes: %v\n%s", err, out)
	}
}

// A set is changed only by the compose project it belongs to (set files only
// by set files), and a job never takes a stored set's name: each refused with
// exit 2 before anything is done, naming both files.
func TestComposeRefusesAnotherOwnersSet(t *testing.T) {
	ctx := context.Background()
	f := newComposeCLI(t)
	first := writeCompose(t, "name: p\nservices:\n  x-db:\n    image: db:1\n")
	if out, _, err := f.run(ctx, "up", "-f", first); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	created := len(f.rt.Created)
	refused := func(what string, want string, args ...string) {
		t.Helper()
		_, _, err := f.run(ctx, args...)
		if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: exit %d, %v; want exit 2 and %q", what, exitCode(err), err, want)
		}
		if len(f.rt.Created) != created {
			t.Errorf("%s: created %v", what, f.rt.Created[created:])
		}
	}
	second := writeCompose(t, "name: p-x\nservices:\n  a:\n    image: a:1\n  db:\n    image: db:2\n")
	refused("project p-x over project p's p-x-db", first, "up", "-f", second)
	refused("project p-x over project p's p-x-db", second, "up", "-f", second)
	if _, err := f.store.Load("p-x-a"); err == nil {
		t.Error("the refused project's other set was applied")
	}
	setFile := filepath.Join(t.TempDir(), "db.yaml")
	if err := os.WriteFile(setFile, []byte("name: p-x-db\nreplicas: 1\ntemplate:\n  image: db:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("a set file over project p's p-x-db", setFile, "up", "-f", setFile)
	if st, err := f.store.Load("p-x-db"); err != nil || st.Spec.Template.Image != "db:1" {
		t.Fatalf("p-x-db changed: %v %+v", err, st.Spec.Template)
	}

	// A set file's set p-db, then project p whose db service is a job.
	if err := os.WriteFile(setFile, []byte("name: p-db\nreplicas: 2\ntemplate:\n  image: db:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := f.run(ctx, "up", "-f", setFile); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	created = len(f.rt.Created)
	jobs := writeCompose(t, "name: p\nservices:\n  db:\n    image: migrate:1\n  app:\n    image: app:1\n    depends_on:\n      db: {condition: service_completed_successfully}\n")
	refused("a job named as a set file's set", "job p-db has the name of a stored set of set file "+setFile, "up", "-f", jobs)
	refused("a compose project over a set file's set", setFile, "up", "-f", writeCompose(t, "name: p\nservices:\n  db:\n    image: db:1\n"))
	if _, _, err := f.run(ctx, "down", "p-db"); err != nil {
		t.Fatal(err)
	}
	// The project's own set db becomes a job.
	if out, _, err := f.run(ctx, "up", "-f", writeCompose(t, "name: p\nservices:\n  db:\n    image: db:1\n")); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	created = len(f.rt.Created)
	refused("a set of the project that became a job", "ostset down p-db", "up", "-f", jobs)
}

// An up killed while a job ran leaves the job's container and the project's
// network, and no set: down -p finds them by the project's label.
func TestComposeDownProjectRemovesLeftJob(t *testing.T) {
	ctx := context.Background()
	f := newComposeCLI(t)
	self, err := f.store.Owner()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{plan.LabelSet: "p-migrate", plan.LabelJob: "true", compose.LabelProject: "p", plan.LabelOwner: self.ID}
	if _, err := f.rt.of("p-migrate").CreateReplica(ctx, plan.ReplicaSpec{Set: "p-migrate", Name: "p-migrate-0", Labels: labels}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rt.EnsureNetwork(ctx, "p_default", map[string]string{compose.LabelProject: "p"}); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := f.run(ctx, "down", "-p", "p")
	if err != nil || !strings.Contains(out, "p: p-migrate: job container p-migrate-0 removed") {
		t.Fatalf("down -p: %v\n%s%s", err, out, stderr)
	}
	if got := f.rt.of("").NetworksRemoved; !slices.Equal(got, []string{"p_default"}) {
		t.Errorf("networks removed %v, want p_default", got)
	}
}

// Two services whose set names meet (x_db and x-db) are refused, a job and a
// set alike.
func TestComposeJobAndSetNamedAlike(t *testing.T) {
	f := newComposeCLI(t)
	file := writeCompose(t, "name: p\nservices:\n  x_db:\n    image: m:1\n  x-db:\n    image: db:1\n    depends_on:\n      x_db: {condition: service_completed_successfully}\n")
	_, _, err := f.run(context.Background(), "up", "-f", file)
	if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), `set "p-x-db" is already defined`) {
		t.Errorf("up: exit %d %v", exitCode(err), err)
	}
	if names, _ := f.store.List(); len(names) > 0 || len(f.rt.Created) > 0 {
		t.Errorf("stored %v, created %v", names, f.rt.Created)
	}
}
