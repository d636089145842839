package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// Invalid input exits 2 with a message saying what and where, before any
// Docker call.
func TestInvalidInputExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(bad, []byte("name: web\nreplica: 2\ntemplate: {image: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"up"}, "-f FILE is required"},
		{[]string{"up", "-f", bad}, bad + `:2: unknown field "replica"`},
		{[]string{"scale", "web"}, "--replicas is required"},
		{[]string{"scale", "web", "--replicas", "-1"}, "must be >= 0"},
		{[]string{"scale"}, "accepts 1 arg(s)"},
		{[]string{"get", "-o", "xml"}, `-o "xml"`},
		{[]string{"down", "web", "--cascade", "sideways"}, "want background or orphan"},
		{[]string{"rollout", "partition", "web", "x"}, "want a whole number"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append(c.args, "--state-dir", t.TempDir()), &stdout, &stderr)
		if code := exitCode(err); code != exitInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ostset %v: exit %d, error %v; want exit 2 and %q", c.args, code, err, c.want)
		}
	}
}

// A variable that is not set is a warning on stderr, with file, line and
// field, also when the file then fails to validate.
func TestUpWarnsAboutUnsetVariables(t *testing.T) {
	file := filepath.Join(t.TempDir(), "set.yaml")
	src := "name: web\ntemplate:\n  image: x\n  args: [\"$OSTSET_TEST_NEVER_SET_ORDINAL\", \"$DBNEEDS_NEVER_SET\"]\nreplica: 2\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"up", "-f", file, "--state-dir", t.TempDir()}, &stdout, &stderr)
	if exitCode(err) != exitInvalid {
		t.Fatalf("exit %d (%v), want 2", exitCode(err), err)
	}
	want := "warning: " + file + `:4: template.args[1]: The "DBNEEDS_NEVER_SET" variable is not set. Defaulting to a blank string.` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}

// The state dir comes from the flag, else OSTSET_STATE_DIR, else the settings file.
func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(settings, []byte("state-dir: /from/file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := func(env string, args ...string) string {
		t.Setenv("OSTSET_STATE_DIR", env)
		var out, errb bytes.Buffer
		err := Run(context.Background(), append([]string{"scale", "nosuchset", "--replicas", "1", "--config", settings}, args...), &out, &errb)
		if err == nil {
			t.Fatal("scale of an unknown set succeeded")
		}
		_, after, _ := strings.Cut(err.Error(), "(state dir ")
		return strings.TrimSuffix(after, ")")
	}
	if got := stateDir(""); got != "/from/file" {
		t.Errorf("from the settings file: %q", got)
	}
	if got := stateDir("/from/env"); got != "/from/env" {
		t.Errorf("from the environment: %q", got)
	}
	if got := stateDir("/from/env", "--state-dir", "/from/flag"); got != "/from/flag" {
		t.Errorf("from the flag: %q", got)
	}
}

// probe-starting is on unless the settings file or OSTSET_PROBE_STARTING
// turns it off.
func TestProbeStartingIsOnByDefault(t *testing.T) {
	dir := t.TempDir()
	off := filepath.Join(dir, "off.yaml")
	if err := os.WriteFile(off, []byte("probe-starting: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env, file string
		want      bool
	}{{"", empty, true}, {"false", empty, false}, {"true", off, true}, {"", off, false}} {
		t.Setenv("OSTSET_PROBE_STARTING", c.env)
		a := &app{v: viper.New()}
		cmd := &cobra.Command{}
		cmd.Flags().String("config", c.file, "")
		if err := a.loadSettings(cmd); err != nil {
			t.Fatal(err)
		}
		if got := a.probeStarting(); got != c.want {
			t.Errorf("OSTSET_PROBE_STARTING=%q, settings %s: %v, want %v", c.env, filepath.Base(c.file), got, c.want)
		}
	}
}

// ostset events prints the set's event log, oldest first; -o json one object a line.
func TestEventsCommand(t *testing.T) {
	dir := t.TempDir()
	store := state.Store{Dir: dir}
	if err := store.Save(state.State{Spec: config.Set{Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"web-0 created (revision web-a)", "web-0 ready (1.2s)"} {
		if err := store.AppendEvent(state.Event{Set: "web", Message: m}); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"events", "web", "--state-dir", dir}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "web-0 created (revision web-a)") || !strings.HasSuffix(lines[1], "web-0 ready (1.2s)") {
		t.Errorf("events output:\n%s", out.String())
	}
	out.Reset()
	if err := Run(context.Background(), []string{"events", "web", "-o", "json", "--state-dir", dir}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"message":`); n != 2 {
		t.Errorf("json events: %d objects:\n%s", n, out.String())
	}
	if err := Run(context.Background(), []string{"events", "nosuch", "--state-dir", dir}, &out, &errb); exitCode(err) != exitInvalid {
		t.Errorf("events of an unknown set: %v", err)
	}
}

// A command that finds the set locked by another process says who holds it and
// gives up at its --timeout (exit 3) instead of waiting for the holder.
func TestLockWaitHonoursTimeout(t *testing.T) {
	dir := t.TempDir()
	store := state.Store{Dir: dir}
	spec := config.Set{Name: "web", Template: config.Template{Image: "x"}}
	spec.ApplyDefaults()
	if _, err := store.Update(context.Background(), "web", func(st *state.State, _ bool) error {
		st.Spec = spec
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	unlock, err := store.Lock(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err = Run(context.Background(), []string{"scale", "web", "--replicas", "2", "--timeout", "300ms", "--state-dir", dir}, &stdout, &stderr)
	// The bound only tells a wait that honoured its timeout from one that
	// ended some other way: the lock is held until the test ends, so a wait
	// that ignored the timeout would not return at all. It is wide, since a
	// busy machine can take seconds to start a command under -race.
	if code := exitCode(err); code != exitTimedOut || time.Since(start) > 60*time.Second {
		t.Fatalf("scale with the set locked: exit %d after %s (%v), want 3 at its timeout", code, time.Since(start), err)
	}
	if !strings.Contains(stderr.String(), "waiting for its lock, held by pid") {
		t.Errorf("stderr %q does not say who holds the lock", stderr.String())
	}
}

// Ctrl-C ends a command with 130; a wait cut short says where the rollout stood
// and how to go on.
func TestInterruptedWaitExitCode(t *testing.T) {
	err := waitError("web", 0, &engine.StoppedError{Set: "web", Cause: context.Canceled,
		Where: "1 of 3 replicas at revision web-b, 2 ready", Detail: "waiting for web-1 not ready"})
	if code := exitCode(err); code != exitInterrupted {
		t.Errorf("interrupted wait: exit %d, want 130", code)
	}
	for _, want := range []string{"interrupted", "1 of 3 replicas at revision web-b", "web-1 not ready", "ostset reconcile web"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if code := exitCode(fmt.Errorf("lock web: %w", context.Canceled)); code != exitInterrupted {
		t.Errorf("interrupted lock wait: exit %d, want 130", code)
	}
	err = waitError("web", time.Minute, &engine.StoppedError{Set: "web", Cause: context.DeadlineExceeded})
	if code := exitCode(err); code != exitTimedOut {
		t.Errorf("timed-out wait: exit %d, want 3", code)
	}
}

// Every file's problems are reported at once, not only the first bad file's.
func TestEveryFilesErrorsReported(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(a, []byte("name: web\nreplicas: -1\ntemplate: {image: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("name: db\ntemplate: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"up", "-f", a, "-f", b, "--state-dir", t.TempDir()}, &stdout, &stderr)
	if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), a+":2: replicas") || !strings.Contains(err.Error(), b+":2: template.image") {
		t.Fatalf("two bad files: %v", err)
	}
}

// The sets of all the files are checked together: one name, and host ports.
func TestFilesCheckedTogether(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(a, []byte("name: web\ntemplate: {image: x, ports: [{containerPort: 80, hostPort: 8080}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("name: web\ntemplate: {image: x}\n---\nname: db\ntemplate:\n  image: x\n  ports: [{containerPort: 5432, hostPort: 8080}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"up", "-f", a, "-f", b, "--state-dir", t.TempDir()}, &stdout, &stderr)
	want := b + `:1: name: set "web" is already defined at ` + a + ":1\n" +
		b + `:7: template.ports[0].hostPort: host ports 8080-8080 overlap 8080-8080 of set "web" (` + a + ":2)"
	if exitCode(err) != exitInvalid || err.Error() != want {
		t.Fatalf("two files with one set name and one host port: %v\nwant:\n%s", err, want)
	}
}
