package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/internal/live"
)

// eventingRuntime is the in-memory runtime with an event stream the test
// feeds, as Docker's.
type eventingRuntime struct {
	*enginetest.Runtime
	events chan engine.SetEvent
}

func (r eventingRuntime) WatchSets(context.Context) (<-chan engine.SetEvent, error) {
	return r.events, nil
}

// startWatch runs ostset args (a get -w) until the returned stop, which
// returns the command's error.
func startWatch(t *testing.T, f *fakeCLI, events chan engine.SetEvent, out *syncBuffer, args ...string) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		root := newRootFor(&app{v: viper.New(), stdout: out, stderr: &syncBuffer{}, engineRT: eventingRuntime{f.rt, events}})
		root.SetArgs(append(args, "--state-dir", f.dir))
		done <- root.ExecuteContext(ctx)
	}()
	return func() error { cancel(); return <-done }
}

// waitLines waits until out has n lines; the watch answers each change at
// once, so a few seconds is far more than it needs.
func waitLines(t *testing.T, out *syncBuffer, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.String() != "" && len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d lines, have:\n%s", n, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get SET -w prints the table, then one row per replica that changed, only
// when it changed, and Ctrl-C ends it with exit 0.
func TestGetWatchPrintsARowPerChange(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	events := make(chan engine.SetEvent, 8)
	var out syncBuffer
	stop := startWatch(t, f, events, &out, "get", "web", "-w")
	first := waitLines(t, &out, 3)
	if !strings.HasPrefix(first[0], "NAME") || !strings.HasPrefix(first[1], "web-0") || !strings.HasPrefix(first[2], "web-1") {
		t.Fatalf("first table:\n%s", out.String())
	}
	events <- engine.SetEvent{Set: "web", Name: "web-0", Action: "health_status: healthy"} // nothing changed
	events <- engine.SetEvent{Set: "other", Name: "other-0", Action: "die"}
	f.rt.Exit("web-1")
	events <- engine.SetEvent{Set: "web", Name: "web-1", Action: "die"}
	lines := waitLines(t, &out, 4)
	time.Sleep(200 * time.Millisecond) // a duplicate row would be printed by now
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); len(got) != 4 {
		t.Fatalf("want one new row, got:\n%s", out.String())
	}
	if !strings.HasPrefix(lines[3], "web-1") || !strings.Contains(lines[3], "exited") {
		t.Errorf("row for the change: %q", lines[3])
	}
	if strings.Index(lines[3], "exited") != strings.Index(lines[0], "STATE") {
		t.Errorf("row not aligned with the header:\n%s", out.String())
	}
	if err := stop(); err != nil {
		t.Errorf("Ctrl-C: %v, want exit 0", err)
	}
}

// get -o json -w streams one object per set and per change; a change made
// by another process to the state directory is seen without any Docker event.
func TestGetWatchJSONFollowsTheStateDirectory(t *testing.T) {
	f := newFakeCLI(t)
	f.up(1)
	var out syncBuffer
	stop := startWatch(t, f, make(chan engine.SetEvent), &out, "get", "-o", "json", "-w")
	waitLines(t, &out, 1)
	if _, _, err := f.run(context.Background(), "scale", "web", "--replicas", "3", "--wait=false"); err != nil {
		t.Fatal(err)
	}
	lines := waitLines(t, &out, 2)
	var row live.SetRow
	if err := json.Unmarshal([]byte(lines[1]), &row); err != nil {
		t.Fatalf("%v: %q", err, lines[1])
	}
	if row.Name != "web" || row.Replicas != 3 {
		t.Errorf("second object: %+v, want web with 3 replicas", row.Status)
	}
	if _, _, err := f.run(context.Background(), "down", "web"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), `{"name":"web",`) || !strings.Contains(out.String(), `"deleted":true}`) {
		if time.Now().After(deadline) {
			t.Fatalf("no deleted object after down:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Errorf("Ctrl-C: %v, want exit 0", err)
	}
}
