package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// fakeCLI runs ostset commands on one state directory with the in-memory runtime.
type fakeCLI struct {
	t     *testing.T
	rt    *enginetest.Runtime
	dir   string
	store state.Store
}

func newFakeCLI(t *testing.T) *fakeCLI {
	dir := t.TempDir()
	return &fakeCLI{t: t, rt: enginetest.New(), dir: dir, store: state.Store{Dir: dir}}
}

func (f *fakeCLI) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errs bytes.Buffer
	root := newRootFor(&app{v: viper.New(), stdout: &out, stderr: &errs, engineRT: f.rt})
	root.SetArgs(append(args, "--state-dir", f.dir))
	err = root.ExecuteContext(ctx)
	return out.String(), errs.String(), err
}

// up creates the set web with n replicas and waits for it.
func (f *fakeCLI) up(n int) {
	f.t.Helper()
	file := filepath.Join(f.t.TempDir(), "web.yaml")
	src := "name: web\nreplicas: " + strconv.Itoa(n) + "\ntemplate:\n  image: x\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if out, _, err := f.run(context.Background(), "up", "-f", file); err != nil {
		f.t.Fatalf("up: %v\n%s", err, out)
	}
}

// Every command that changes what a set should be waits, by default, until the
// change is carried out: without a daemon nothing else would.
func TestChangesWaitByDefault(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	cases := []struct {
		args    []string
		creates int // replicas the command creates
	}{
		{[]string{"rollout", "restart", "web"}, 2},
		{[]string{"rollout", "undo", "web"}, 2},
		{[]string{"scale", "web", "--replicas", "3"}, 1},
		{[]string{"rollout", "partition", "web", "2"}, 0},
		{[]string{"rollout", "restart", "web"}, 1}, // ordinals >= 2 only
		{[]string{"rollout", "partition", "web", "0"}, 2},
		{[]string{"rollout", "pause", "web"}, 0},
		{[]string{"rollout", "restart", "web"}, 0}, // paused: stored, nothing replaced
		{[]string{"rollout", "resume", "web"}, 3},
		{[]string{"recreate", "web-1"}, 1},
	}
	for _, c := range cases {
		before := len(f.rt.Created)
		out, stderr, err := f.run(context.Background(), c.args...)
		if err != nil {
			t.Fatalf("ostset %v: %v\n%s%s", c.args, err, out, stderr)
		}
		if got := len(f.rt.Created) - before; got != c.creates {
			t.Errorf("ostset %v created %d replicas before it returned, want %d\n%s", c.args, got, c.creates, out)
		}
		waits := c.args[1] != "pause"
		done := strings.Contains(out, "web: rollout complete") || strings.Contains(out, "web: rollout paused: ")
		if done != waits {
			t.Errorf("ostset %v: waited %v, want %v:\n%s", c.args, !waits, waits, out)
		}
	}
}

// --wait=false stores the change and, with no daemon to carry it out, says so.
func TestNoWaitHintsWithoutDaemon(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	before := len(f.rt.Created)
	out, stderr, err := f.run(context.Background(), "rollout", "restart", "web", "--wait=false")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rt.Created) != before {
		t.Errorf("--wait=false replaced replicas:\n%s", out)
	}
	want := "note: no daemon runs: the change is stored, not carried out; run 'ostset reconcile web' or keep 'ostset daemon' running\n"
	if stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}

	release, err := f.store.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, stderr, err := f.run(context.Background(), "scale", "web", "--replicas", "1", "--wait=false"); err != nil || stderr != "" {
		t.Errorf("with a daemon running: err %v, stderr %q; want neither", err, stderr)
	}
}

// With a daemon running, a waiting command follows: it executes nothing, and its
// wait ends with the same exit codes as a wait that drives.
func TestWaitFollowsWhenADaemonRuns(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	release, err := f.store.HoldDaemon() // holds the state directory, drives nothing
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	pid, _ := f.store.DaemonRunning()
	before := len(f.rt.Created)

	out, _, err := f.run(context.Background(), "rollout", "restart", "web", "--timeout", "200ms")
	if code := exitCode(err); code != exitTimedOut {
		t.Fatalf("exit %d (%v), want %d", code, err, exitTimedOut)
	}
	if len(f.rt.Created) != before {
		t.Errorf("the command acted while a daemon ran: %v", f.rt.Log)
	}
	if want := "web: following the rollout that the daemon (pid " + strconv.Itoa(pid) + ") drives\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(err.Error(), "rollout not complete after 200ms; 0 of 2 replicas at revision") {
		t.Errorf("error: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel) // Ctrl-C
	_, _, err = f.run(ctx, "scale", "web", "--replicas", "3")
	if code := exitCode(err); code != exitInterrupted || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("interrupted follow: exit %d (%v), want %d", code, err, exitInterrupted)
	}
	if len(f.rt.Created) != before {
		t.Errorf("the command acted while a daemon ran: %v", f.rt.Log)
	}

	// The daemon carries the change out; the command follows it to the end.
	d := &engine.Controller{Runtime: f.rt, Store: f.store, Poll: 10 * time.Millisecond}
	dctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = (&daemon.Daemon{Controller: d, Resync: 20 * time.Millisecond}).Run(dctx); close(done) }()
	defer func() { stop(); <-done }()
	out, _, err = f.run(context.Background(), "reconcile", "web", "--timeout", "10s")
	if err != nil || !strings.Contains(out, "web: rollout complete") {
		t.Errorf("following the daemon: %v\n%s", err, out)
	}
	if len(f.rt.Replicas()) != 3 {
		t.Errorf("replicas %v, want 3", f.rt.Replicas())
	}
}

// get, describe and status say whether a daemon runs, and its pid.
func TestCommandsSayWhetherADaemonRuns(t *testing.T) {
	f := newFakeCLI(t)
	f.up(1)
	none := "no daemon runs: changes wait for the next ostset command, and nothing recreates a replica removed by hand"
	check := func(want, wantJSON string) {
		t.Helper()
		for _, args := range [][]string{{"get"}, {"get", "web"}} {
			if out, stderr, err := f.run(context.Background(), args...); err != nil || !strings.Contains(stderr, "note: "+want) || strings.Contains(out, want) {
				t.Errorf("ostset %v: %v; stderr %q, want the note %q there only", args, err, stderr, want)
			}
		}
		if _, stderr, _ := f.run(context.Background(), "get", "-o", "json"); stderr != "" {
			t.Errorf("get -o json: stderr %q", stderr)
		}
		for _, args := range [][]string{{"describe", "web"}, {"status", "web"}} {
			if out, _, err := f.run(context.Background(), args...); err != nil || !strings.Contains(out, want) {
				t.Errorf("ostset %v: %v; want %q in:\n%s", args, err, want, out)
			}
		}
		if out, _, err := f.run(context.Background(), "status", "web", "-o", "json"); err != nil || !strings.Contains(out, wantJSON) {
			t.Errorf("status -o json: %v; want %s in:\n%s", err, wantJSON, out)
		}
	}
	check(none, `"daemon": {
    "running": false
  }`)
	release, err := f.store.HoldDaemon()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	pid := strconv.Itoa(os.Getpid())
	check("daemon running (pid "+pid+")", `"daemon": {
    "running": true,
    "pid": `+pid+`
  }`)
}

// Every command starts a new progress window, also one that does not wait and
// leaves the rollout to a daemon: a late mark an earlier command left is gone.
func TestCommandsStartANewProgressWindow(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte("name: web\nreplicas: 2\ntemplate:\n  image: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := f.store.HoldDaemon() // a daemon that has not run its next pass yet
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, args := range [][]string{
		{"scale", "web", "--replicas", "3", "--wait=false"},
		{"recreate", "web-0", "--wait=false"},
		{"rollout", "partition", "web", "1", "--wait=false"},
		{"up", "-f", file, "--wait=false"},
	} {
		if _, err := f.store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
			st.Progress = state.ProgressMark{Revision: st.UpdateRevision, At: time.Now().Add(-time.Hour), Late: true}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if out, stderr, err := f.run(context.Background(), args...); err != nil {
			t.Fatalf("ostset %v: %v\n%s%s", args, err, out, stderr)
		}
		if st, _ := f.store.Load("web"); st.Progress.Late {
			t.Errorf("ostset %v left the earlier late mark %+v", args, st.Progress)
		}
	}
}
