package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diff and up --dry-run: exit 0 with no change, 1 with one (printing the
// plan, nothing on stderr), 2 for an error; nothing is done either way.
func TestDiffExitCodes(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	f.rt.Log = nil
	file := filepath.Join(t.TempDir(), "web.yaml")
	write := func(src string) {
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("name: web\nreplicas: 2\ntemplate:\n  image: x\n")
	for _, cmd := range [][]string{{"diff", "-f", file}, {"up", "--dry-run", "-f", file}} {
		out, _, err := f.run(context.Background(), cmd...)
		if err != nil || !strings.HasPrefix(out, "web: no change") {
			t.Errorf("%v on an unchanged set: exit %d (%v)\n%s", cmd, exitCode(err), err, out)
		}
	}
	write("name: web\nreplicas: 3\ntemplate:\n  image: y\n")
	for _, cmd := range [][]string{{"diff", "-f", file}, {"up", "--dry-run", "-f", file}} {
		out, _, err := f.run(context.Background(), cmd...)
		var stderr strings.Builder
		if code := report(err, &stderr); code != 1 || stderr.Len() > 0 {
			t.Errorf("%v on a change: exit %d, stderr %q", cmd, code, stderr.String())
		}
		for _, want := range []string{"template: image x -> y", "spec: replicas 2 -> 3", "~ replace web-1:", "~ replace web-0:", "+ create  web-2 at "} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", cmd, want, out)
			}
		}
	}
	out, _, _ := f.run(context.Background(), "diff", "-f", file, "-o", "json")
	var previews []struct {
		Name            string
		RevisionChanged bool
		Plan            struct {
			Replicas []struct{ Name, Action string }
		}
	}
	if err := json.Unmarshal([]byte(out), &previews); err != nil || len(previews) != 1 || !previews[0].RevisionChanged || len(previews[0].Plan.Replicas) != 3 {
		t.Errorf("diff -o json: %v\n%s", err, out)
	}
	write("name: web\nreplicas: -1\ntemplate:\n  image: y\n")
	if _, _, err := f.run(context.Background(), "diff", "-f", file); exitCode(err) != exitInvalid {
		t.Errorf("diff of an invalid file: exit %d (%v), want 2", exitCode(err), err)
	}
	if len(f.rt.Log) > 0 {
		t.Errorf("diff acted on the engine: %v", f.rt.Log)
	}
	if st, err := f.store.Load("web"); err != nil || st.Spec.DesiredReplicas() != 2 || st.Generation != 1 {
		t.Errorf("diff changed the stored set: %v, %+v", err, st.Spec)
	}
}
