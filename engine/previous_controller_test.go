package engine_test

import (
	"fmt"
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
