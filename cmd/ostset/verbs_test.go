package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/viper"
)

// kubectl's and compose's words run ostset's own commands on the same state
// directory and runtime: apply creates, ps lists replicas, config prints the
// stored set file, wait returns once the rollout is complete, edit applies the
// edited file, delete deletes.
func TestKubectlAndComposeWords(t *testing.T) {
	f := newFakeCLI(t)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte("name: web\nreplicas: 2\ntemplate:\n  image: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := f.run(ctx, "apply", "-f", file); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	out, _, err := f.run(ctx, "ps")
	if err != nil || !strings.Contains(out, "web-0") || !strings.Contains(out, "web-1") {
		t.Fatalf("ps: %v\n%s", err, out)
	}
	if out, _, err := f.run(ctx, "get", "web", "-o", "name"); err != nil || out != "web-0\nweb-1\n" {
		t.Fatalf("get web -o name: %v\n%q", err, out)
	}
	if out, _, err := f.run(ctx, "get", "-o", "jsonpath={.items[*].replicas}"); err != nil || out != "2" {
		t.Fatalf("get -o jsonpath: %v\n%q", err, out)
	}
	if out, _, err := f.run(ctx, "ls"); err != nil || !strings.Contains(out, "(set files)  web") {
		t.Fatalf("ls: %v\n%s", err, out)
	}
	out, _, err = f.run(ctx, "config", "web")
	if err != nil || !strings.Contains(out, "name: web") || !strings.Contains(out, "replicas: 2") {
		t.Fatalf("config: %v\n%s", err, out)
	}
	if out, _, err := f.run(ctx, "wait", "--for=condition=Ready", "web"); err != nil {
		t.Fatalf("wait web: %v\n%s", err, out)
	}
	t.Setenv("KUBE_EDITOR", "sed -i 's/replicas: 2/replicas: 3/'")
	if out, _, err := f.run(ctx, "edit", "web"); err != nil {
		t.Fatalf("edit: %v\n%s", err, out)
	}
	if out, _, err := f.run(ctx, "get", "web"); err != nil || !strings.Contains(out, "web-2") {
		t.Fatalf("after edit to 3 replicas: %v\n%s", err, out)
	}
	t.Setenv("KUBE_EDITOR", "true")
	if _, errs, err := f.run(ctx, "edit", "web"); err != nil || !strings.Contains(errs, "no changes") {
		t.Fatalf("edit without a change: %v\n%s", err, errs)
	}
	if out, _, err := f.run(ctx, "delete", "web"); err != nil {
		t.Fatalf("delete: %v\n%s", err, out)
	}
	if f.store.Has("web") {
		t.Fatal("delete web left the set stored")
	}
}

// delete and restart complete set names, as down and rollout restart do.
func TestAliasesCompleteAsTheirCommand(t *testing.T) {
	f := newFakeCLI(t)
	f.up(1)
	t.Setenv("OSTSET_STATE_DIR", f.dir)
	for _, verb := range []string{"delete", "restart"} {
		var out bytes.Buffer
		root := newRootFor(&app{v: viper.New(), stdout: &out, stderr: &out, engineRT: f.rt})
		root.SetArgs([]string{"__complete", verb, ""})
		if err := root.Execute(); err != nil || !strings.HasPrefix(out.String(), "web\n") {
			t.Errorf("complete %s: %v\n%s", verb, err, out.String())
		}
	}
}

// logs --since that is no time is invalid input (exit 2).
func TestLogsSinceInvalid(t *testing.T) {
	f := newFakeCLI(t)
	f.up(1)
	if _, _, err := f.run(context.Background(), "logs", "web", "--since", "yesterday"); err == nil || exitCode(err) != exitInvalid {
		t.Fatalf("logs --since yesterday: %v", err)
	}
}
