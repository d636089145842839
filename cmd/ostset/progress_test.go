package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostset/ostset/engine/state"
)

func writeSet(t *testing.T, n string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte("name: web\nreplicas: "+n+"\ntemplate:\n  image: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// --progress json: every line of stdout is one event object, replica steps
// and the command's own lines alike.
func TestProgressJSON(t *testing.T) {
	f := newFakeCLI(t)
	out, _, err := f.run(context.Background(), "up", "-f", writeSet(t, "2"), "--progress", "json")
	if err != nil {
		t.Fatal(err)
	}
	var replicaSteps int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e state.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Set != "web" || e.Message == "" {
			t.Fatalf("line %q is not an event of web (%v)", line, err)
		}
		if e.Replica != "" {
			replicaSteps++
		}
	}
	if replicaSteps < 2 || !strings.Contains(out, `"message":"rollout complete"`) {
		t.Errorf("want the replicas' steps and the end:\n%s", out)
	}
}

// --progress tty: a block redrawn in place, ending with the set's bar full
// and a line per replica.
func TestProgressTTY(t *testing.T) {
	f := newFakeCLI(t)
	out, _, err := f.run(context.Background(), "up", "-f", writeSet(t, "2"), "--progress", "tty")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\x1b[") {
		t.Fatalf("nothing redrawn in place:\n%q", out)
	}
	last := out[strings.LastIndex(out, "\x1b[J")+len("\x1b[J"):]
	for _, want := range []string{"web: rollout complete\n", "web [" + strings.Repeat("█", 20) + "] updated 2/2, ready 2/2", "  web-0 ", "  web-1 "} {
		if !strings.Contains(last, want) {
			t.Errorf("final screen lacks %q:\n%s", want, last)
		}
	}
	if _, _, err := f.run(context.Background(), "up", "-f", writeSet(t, "2"), "--progress", "fancy"); exitCode(err) != exitInvalid {
		t.Errorf("--progress fancy: %v, want exit 2", err)
	}
}
