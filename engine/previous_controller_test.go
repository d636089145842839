package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A replica that exited is removed to be recreated, and its logs with it:
// the last PreviousLines lines are kept first, for logs --previous. A
// replica removed by a scale-down keeps nothing (it did not fail).
func TestFailedReplicaKeepsItsLastLines(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	var lines []string
	for i := range state.PreviousLines + 50 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	rt.Output = map[string][]string{"web-1": lines, "web-0": {"fine"}}
	rt.Exit("web-1")
	converge(t, c)
	p, ok, err := c.Store.LoadPrevious("web-1")
	if err != nil || !ok {
		t.Fatalf("nothing kept of web-1's previous container: %v", err)
	}
	if len(p.Lines) != state.PreviousLines || p.Lines[len(p.Lines)-1] != "line 249" || p.Container == "" {
		t.Errorf("kept %d lines ending %q of container %q; want the last %d", len(p.Lines), p.Lines[len(p.Lines)-1], p.Container, state.PreviousLines)
	}
	apply(t, c.Store, 0, "v1")
	converge(t, c)
	if _, ok, _ := c.Store.LoadPrevious("web-0"); ok {
		t.Error("a replica removed by a scale-down kept its logs as a failed one")
	}
}

// A replica that exited and is then scaled away keeps its last lines as one
// recreated after a failure does: it failed all the same.
func TestScaleDownOfAnExitedReplicaKeepsItsLastLines(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Output = map[string][]string{"web-1": {"panic: out of memory"}}
	apply(t, c.Store, 1, "v1")
	rt.Exit("web-1")
	converge(t, c)
	p, ok, err := c.Store.LoadPrevious("web-1")
	if err != nil || !ok || len(p.Lines) != 1 || p.Lines[0] != "panic: out of memory" {
		t.Fatalf("web-1, exited and scaled away: kept %+v, %v, %v", p, ok, err)
	}
}

// Deleting a set removes what was kept of its replicas' previous
// containers, and only its own.
func TestDeleteForgetsPreviousLogs(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	rt.Output = map[string][]string{"web-1": {"bye"}}
	rt.Exit("web-1")
	converge(t, c)
	other := filepath.Join(c.Store.Dir, "previous", "web-db-0.json")
	if err := os.WriteFile(other, []byte(`{"replica":"web-db-0"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Store.LoadPrevious("web-1"); !ok {
		t.Fatal("nothing kept of web-1")
	}
	if err := c.Store.Delete("web"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Store.LoadPrevious("web-1"); ok {
		t.Error("web-1's previous logs outlive the set")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the previous logs of another set's replica went too: %v", err)
	}
}
