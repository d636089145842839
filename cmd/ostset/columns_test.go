package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// get -o wide shows, per ordinal, the image of its revision and the host
// ports it publishes (hostPort + ordinal).
func TestGetWidePortsAndImage(t *testing.T) {
	st := state.State{Spec: config.Set{Name: "web", Template: config.Template{Image: "ostset/web:2",
		Ports: []config.Port{{ContainerPort: 6379, HostPort: 16379}, {ContainerPort: 53, Protocol: "udp"}}}},
		Revisions: []state.Revision{{Name: "web-a", Spec: config.RevisionSpec{Template: config.Template{Image: "ostset/web:1",
			Ports: []config.Port{{ContainerPort: 6379, HostPort: 16379}}}}}}}
	s := plan.Status{Name: "web", Containers: []plan.ContainerStatus{
		{Name: "web-0", Ordinal: 0, Revision: "web-a", State: "running", Ready: true, ID: "abc"}},
		Pending: []plan.PendingReplica{{Name: "web-1", Ordinal: 1}}}
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(s, st, "wide"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	for _, want := range []string{"IMAGE", "PORTS"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("header %q lacks %s", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "ostset/web:1") || !strings.Contains(lines[1], "16379->6379/tcp") {
		t.Errorf("web-0: %q", lines[1])
	}
	if !strings.Contains(lines[2], "ostset/web:2") || !strings.Contains(lines[2], "16380->6379/tcp,->53/udp") {
		t.Errorf("web-1: %q", lines[2])
	}
}

// An empty listing says so, as kubectl's "No resources found".
func TestGetEmptySaysSo(t *testing.T) {
	f := newFakeCLI(t)
	out, errOut, err := f.run(context.Background(), "get")
	if err != nil || out != "" || !strings.HasPrefix(errOut, "No sets found in "+f.dir) {
		t.Errorf("get on an empty state dir: %v, stdout %q, stderr %q", err, out, errOut)
	}
}

// A mistyped set or replica name gets a "did you mean".
func TestUnknownSetDidYouMean(t *testing.T) {
	f := newFakeCLI(t)
	f.up(1)
	for _, c := range []struct{ args []string }{
		{[]string{"get", "wbe"}},
		{[]string{"scale", "wbe", "--replicas", "2"}},
		{[]string{"rollout", "restart", "wbe"}},
		{[]string{"logs", "wbe-0"}},
	} {
		_, _, err := f.run(context.Background(), c.args...)
		want := `did you mean "web"?`
		if c.args[0] == "logs" {
			want = `did you mean "web-0"?`
		}
		if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("ostset %v: exit %d, %v; want exit 2 and %s", c.args, exitCode(err), err, want)
		}
	}
}
