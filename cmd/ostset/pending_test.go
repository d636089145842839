package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// get lists every desired ordinal: one without a container is a row, with the
// engine's words when it cannot start.
func TestGetPending(t *testing.T) {
	s := plan.Status{Name: "web",
		Containers: []plan.ContainerStatus{{Name: "web-0", Ordinal: 0, Revision: "web-a", State: "running", Ready: true, ID: "c0", Created: time.Now()}},
		Pending: []plan.PendingReplica{
			{Name: "web-1", Ordinal: 1, Reason: "cannot start: web-1: start: Bind for 0.0.0.0:21401 failed: port is already allocated", Failed: true},
			{Name: "web-2", Ordinal: 2, Reason: "not created yet"},
		}}
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(s, state.State{}, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[2], "web-1") || !strings.Contains(lines[2], "failed") ||
		!strings.HasPrefix(lines[3], "web-2") || !strings.Contains(lines[3], "pending") ||
		lines[4] != "web-1: cannot start: web-1: start: Bind for 0.0.0.0:21401 failed: port is already allocated" {
		t.Errorf("get:\n%s", out.String())
	}
	out.Reset()
	if err := a.printReplicas(s, state.State{}, "wide"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "port is already allocated") || !strings.Contains(out.String(), "not created yet") {
		t.Errorf("get -o wide:\n%s", out.String())
	}
	// The engine's words are as of its last refusal: the port's holder may
	// be gone since, and the next try says so.
	s.Pending[0].FailedAt, s.Pending[0].RetryAt = time.Now().Add(-12*time.Second), time.Now().Add(48*time.Second+300*time.Millisecond)
	out.Reset()
	if err := a.printReplicas(s, state.State{}, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "port is already allocated (refused 12s ago; next try in 48s)") {
		t.Errorf("get of a refusal with its times:\n%s", out.String())
	}
	for _, format := range []string{"json", "yaml"} {
		out.Reset()
		if err := a.printReplicas(s, state.State{}, format); err != nil {
			t.Fatal(err)
		}
		var got []plan.ContainerStatus
		if err := yaml.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if len(got) != 3 || got[1].Name != "web-1" || got[1].State != "failed" || !strings.Contains(got[1].Reason, "port is already allocated") ||
			got[2].Name != "web-2" || got[2].State != "pending" {
			t.Errorf("get -o %s lacks the ordinals without a container:\n%s", format, out.String())
		}
	}
}
