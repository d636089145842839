package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

// convert needs no engine: it writes each set's StatefulSet and Service, and
// lists on stderr, with the set's file and line, what they cannot express.
func TestConvertWritesManifestsAndListsTheRest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "set.yaml")
	src := "name: web\ntemplate:\n  image: x\n  ports: [{containerPort: 80, hostPort: 8080}]\n---\nname: db\ntemplate: {image: y}\nvolumeClaimTemplates: [{name: data, mountPath: /data}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), []string{"convert", "-f", file, "--storage", "5Gi", "--state-dir", t.TempDir()}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if n := strings.Count(out, "kind: StatefulSet"); n != 2 || strings.Count(out, "kind: Service") != 2 || strings.Count(out, "\n---\n") != 3 {
		t.Errorf("want two StatefulSets and two Services in four documents:\n%s", out)
	}
	if !strings.Contains(out, "storage: 5Gi") {
		t.Error("--storage not used")
	}
	want := "warning: " + file + ":1: not expressible in Kubernetes: web: template.ports[0].hostPort: 8080 published per ordinal"
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr:\n%s\nwant one line starting %q", stderr.String(), want)
	}
}

func TestExportAndConvertRefuseBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"convert"}, "-f FILE is required"},
		{[]string{"convert", "-f", "testdata/none.yaml", "--storage", "lots"}, `--storage: "lots" is not a storage size`},
		{[]string{"export"}, "accepts 1 arg(s)"},
		{[]string{"export", "web", "-o", "xml"}, `-o "xml"`},
		{[]string{"export", "nope"}, `unknown set "nope"`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append(c.args, "--state-dir", t.TempDir()), &stdout, &stderr)
		if code := exitCode(err); code != exitInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ostset %v: exit %d, error %v; want exit 2 and %q", c.args, code, err, c.want)
		}
	}
}

// export reads the stored spec: as manifests with the restart stamp of the
// update revision, or as a set file that reads back as the same set.
func TestExportStoredSet(t *testing.T) {
	dir := t.TempDir()
	sets, err := config.Parse("set.yaml", []byte("name: web\nreplicas: 2\ntemplate:\n  image: x\n  env: {A: \"$$HOME {{.Ordinal}}\"}\nvolumeClaimTemplates: [{name: data, mountPath: /data}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := sets[0].RevisionSpec("sha256:1")
	spec.RestartedAt = "2026-01-02T03:04:05Z"
	st := state.State{Spec: sets[0], UpdateRevision: "web-" + spec.Hash(),
		Revisions: []state.Revision{{Number: 1, Name: "web-" + spec.Hash(), Spec: spec}}}
	if err := (state.Store{Dir: dir}).Save(st); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), []string{"export", "web", "--state-dir", dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: StatefulSet", "replicas: 2", "kubectl.kubernetes.io/restartedAt: \"2026-01-02T03:04:05Z\"", "storage: 1Gi", "kind: Service"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("export lacks %q:\n%s", want, stdout.String())
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("nothing is lost, yet stderr says:\n%s", stderr.String())
	}
	stdout.Reset()
	if err := Run(context.Background(), []string{"export", "web", "-o", "yaml", "--state-dir", dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	back, err := config.Parse("export.yaml", stdout.Bytes(), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if got, want := back[0].RevisionSpec("sha256:1").Hash(), sets[0].RevisionSpec("sha256:1").Hash(); got != want || back[0].Template.Env["A"] != "$HOME {{.Ordinal}}" {
		t.Errorf("the set file reads back with revision %s and env %v, want %s:\n%s", got, back[0].Template.Env, want, stdout.String())
	}
}
