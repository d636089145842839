package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

func notReadyStatus() plan.Status {
	return plan.Status{Name: "web", Replicas: 2, Containers: []plan.ContainerStatus{
		{Name: "web-0", Ordinal: 0, State: "running", Health: "healthy", Ready: true, ID: "aaa"},
		{Name: "web-1", Ordinal: 1, State: "running", Health: "unhealthy", ID: "bbb", Reason: `2 restarts, health: "no response"`,
			NotReady: &plan.NotReadyDetail{Restarts: 2, HealthOutput: "checking 127.0.0.1:5432\nno response", Logs: []string{"LOG: starting", "FATAL: lock file exists"}}},
	}}
}

// get -o wide says in short why a replica is not ready.
func TestGetWideReason(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(notReadyStatus(), state.State{}, "wide"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(lines[0], "CONTAINER ID   REASON") || !strings.HasSuffix(lines[1], "aaa            -") ||
		!strings.HasSuffix(lines[2], `bbb            2 restarts, health: "no response"`) {
		t.Errorf("get -o wide:\n%s", out.String())
	}
}

// describe says why in full: the whole probe output and the last log lines.
func TestDescribeNotReady(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out}
	if err := a.describe(state.State{}, notReadyStatus(), nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	want := `  web-1 not ready: 2 restarts, health: "no response"
    last healthcheck:
      checking 127.0.0.1:5432
      no response
    last log lines:
      LOG: starting
      FATAL: lock file exists
`
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "web-0 not ready") {
		t.Errorf("describe:\n%s\nwant:\n%s", out.String(), want)
	}
}

// A replica whose recreation the crash-loop back-off holds back is said to be in
// CrashLoopBackOff, with the time of the next try, by get and describe.
func TestGetAndDescribeCrashLoopBackOff(t *testing.T) {
	next := time.Now().Add(40 * time.Second)
	at := next.Local().Format(time.TimeOnly)
	s := plan.Status{Name: "web", Replicas: 1, Containers: []plan.ContainerStatus{
		{Name: "web-0", Ordinal: 0, State: "exited", ID: "aaa", Reason: "exit 3",
			NotReady: &plan.NotReadyDetail{ExitCode: 3}, CrashLoop: &plan.CrashLoopStatus{Recreations: 3, NextTry: next}},
	}}
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(s, state.State{}, ""); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(out.String(), "\n"); !strings.HasPrefix(lines[1], "web-0   0/1     CrashLoopBackOff") {
		t.Errorf("get:\n%s", out.String())
	}
	out.Reset()
	if err := a.printReplicas(s, state.State{}, "wide"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "CrashLoopBackOff") || !strings.Contains(out.String(), "exit 3; next try at "+at+" (in ") {
		t.Errorf("get -o wide:\n%s", out.String())
	}
	out.Reset()
	if err := a.describe(state.State{}, s, nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	want := "  web-0 not ready: exit 3\n    CrashLoopBackOff: exited and recreated 3 times in a row; next try at " + at + " (in "
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "  web-0   CrashLoopBackOff") {
		t.Errorf("describe:\n%s\nwant:\n%s", out.String(), want)
	}
}
