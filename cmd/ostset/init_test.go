package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// initStatus is a set with web-0 ready and web-1 stuck on a failed init container.
func initStatus() plan.Status {
	created := time.Now().Add(-time.Minute)
	return plan.Status{Name: "web",
		Containers: []plan.ContainerStatus{{Name: "web-0", Ordinal: 0, Revision: "web-a", State: "running", Ready: true, ID: "c0", Created: created}},
		Initializing: []plan.InitStatus{{Replica: "web-1", Ordinal: 1, Revision: "web-a", Succeeded: 1, Total: 2, Init: "clone",
			Container: "web-1-init-clone", ID: "i1", State: plan.InitFailed, ExitCode: 3,
			Logs: []string{"cloning from web-0", "connection refused"}, Created: created}},
	}
}

// get lists an initializing ordinal among the replicas; -o wide also names the
// failed init container with its exit code and output.
func TestGetInitializing(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(initStatus(), state.State{}, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "web-1") || !strings.Contains(lines[2], "0/1") ||
		!strings.Contains(lines[2], "Init:ExitCode:3") || strings.Contains(out.String(), "connection refused") {
		t.Errorf("get:\n%s", out.String())
	}
	out.Reset()
	if err := a.printReplicas(initStatus(), state.State{}, "wide"); err != nil {
		t.Fatal(err)
	}
	want := "web-1: init container clone (web-1-init-clone) exited with code 3\n" +
		"  last output:\n    cloning from web-0\n    connection refused\n"
	if !strings.HasSuffix(out.String(), want) || !strings.Contains(out.String(), "i1") {
		t.Errorf("get -o wide:\n%s\nwant it to end with\n%s", out.String(), want)
	}
}

func TestDescribeInitializing(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out}
	if err := a.describe(state.State{}, initStatus(), nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	want := "Init containers:\n" +
		"  web-1 (revision web-a): 1 of 2 succeeded; init container clone (web-1-init-clone) exited with code 3\n" +
		"    last output:\n      cloning from web-0\n      connection refused\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("describe:\n%s\nwant it to hold\n%s", out.String(), want)
	}
}
