package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// get and describe show a replica whose recorded removal did not finish.
func TestRemovalPendingShown(t *testing.T) {
	at := time.Now().Add(-time.Minute)
	s := plan.Status{Name: "web", Replicas: 1, Containers: []plan.ContainerStatus{
		{Name: "web-0", Ordinal: 0, State: "running", Ready: true, ID: "aaa"},
		{Name: "web-1", Ordinal: 1, State: "running", Ready: true, ID: "bbb", RemovalPending: &at},
	}}
	var out, errOut bytes.Buffer
	a := &app{stdout: &out, stderr: &errOut}
	if err := a.printReplicas(s, state.State{}, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if strings.Contains(lines[1], "removal pending") || !strings.Contains(lines[2], "running (removal pending)") {
		t.Errorf("get:\n%s", out.String())
	}
	if want := "note: web-1 is being removed (recorded 1m ago"; !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("get notes %q, want %q…", errOut.String(), want)
	}
	out.Reset()
	if err := a.describe(state.State{}, s, nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  web-1 is being removed (recorded") || strings.Contains(out.String(), "web-0 is being removed") {
		t.Errorf("describe:\n%s", out.String())
	}
}
