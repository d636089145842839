package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
)

// initStatus is a set with web-0 ready and web-1 stuck on a failed init container.
func initStatus() engine.Status {
	created := time.Now().Add(-time.Minute)
	return engine.Status{Name: "web",
		Containers: []engine.ContainerStatus{{Name: "web-0", Ordinal: 0, Revision: "web-a", State: "running", Ready: true, ID: "c0", Created: created}},
		Initializing: []engine.InitStatus{{Replica: "web-1", Ordinal: 1, Revision: "web-a", Succeeded: 1, Total: 2, Init: "clone",
			Container: "web-1-init-clone", ID: "i1", State: engine.InitFailed, ExitCode: 3,
			Logs: []string{"cloning from web-0", "connection refused"}, Created: created}},
	}
}

// get lists an initializing ordinal among the replicas; -o wide also names the
// failed init container with its exit code and output.
func TestGetInitializing(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	if err := a.printReplicas(initStatus(), engine.State{}, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "web-1") || !strings.Contains(lines[2], "0/1") ||
		!strings.Contains(lines[2], "Init:ExitCode:3") || strings.Contains(out.String(), "connection refused") {
		t.Errorf("get:\n%s", out.String())
	}
	out.Reset()
	if err := a.printReplicas(initStatus(), engine.State{}, "wide"); err != nil {
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
	if err := a.describe(engine.State{}, initStatus(), nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	want := "Init containers:\n" +
		"  web-1 (revision web-a): 1 of 2 succeeded; init container clone (web-1-init-clone) exited with code 3\n" +
		"    last output:\n      cloning from web-0\n      connection refused\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("describe:\n%s\nwant it to hold\n%s", out.String(), want)
	}
}

// Consecutive pulls (the main image, then init containers') each get their lines.
func TestPullPrinterSequential(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := newPullPrinter(&out, false, "web", c.now)
	feed(p, c)
	p.update(engine.PullProgress{Image: "busybox:1", State: engine.PullStarted})
	p.update(engine.PullProgress{Image: "busybox:1", State: engine.PullUpToDate})
	c.advance(time.Second)
	p.finish(nil)
	want := "web: pulling reg:5000/app:1\n" +
		"web: pulled reg:5000/app:1 (2 layers, 4.0MB downloaded) in 1.2s\n" +
		"web: pulling busybox:1\n" +
		"web: pulled busybox:1 (up to date) in 1s\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
