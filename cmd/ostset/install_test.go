package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUserUnitText(t *testing.T) {
	u := &userUnit{binary: "/opt/ostset/bin/ostset", stateDir: "/srv/ostset state", env: []string{"DOCKER_HOST=unix:///run/user/1000/docker.sock"}}
	want := `# Written by 'ostset daemon install'; 'ostset daemon uninstall' removes it.
[Unit]
Description=ostset daemon: keeps the sets of a state directory converged
Documentation=https://github.com/ostset/ostset/blob/main/docs/operating.md

[Service]
Environment=DOCKER_HOST=unix:///run/user/1000/docker.sock
ExecStart=/opt/ostset/bin/ostset daemon --state-dir "/srv/ostset state"
Restart=on-failure
RestartSec=5s

[Install]
WantedBy=default.target
`
	if got := u.text(); got != want {
		t.Errorf("unit:\n%s\nwant:\n%s", got, want)
	}
	u = &userUnit{binary: "/usr/local/bin/ostset"}
	if got := u.text(); !strings.Contains(got, "\nExecStart=/usr/local/bin/ostset daemon\n") || strings.Contains(got, "Environment") {
		t.Errorf("unit for the default state directory:\n%s", got)
	}
}

func TestSystemdQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/ostset": "/usr/bin/ostset",
		"/a b":            `"/a b"`,
		`/a"b`:            `"/a\"b"`,
		"/100%":           `"/100%%"`,
		"/$HOME":          `"/$$HOME"`,
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// fakeSystemctl records the commands a unit runs, failing the one named fail.
type fakeSystemctl struct {
	ran  []string
	fail string
}

func (f *fakeSystemctl) run(_ context.Context, name string, args ...string) error {
	line := name + " " + strings.Join(args, " ")
	f.ran = append(f.ran, line)
	if line == f.fail {
		return errors.New("failed")
	}
	return nil
}

func TestUserUnitInstallAndUninstall(t *testing.T) {
	dir := t.TempDir()
	var fake fakeSystemctl
	var out bytes.Buffer
	u := &userUnit{path: filepath.Join(dir, "systemd", "user", unitName), binary: "/usr/local/bin/ostset", run: fake.run, stdout: &out}
	if err := u.install(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(u.path)
	if err != nil || string(data) != u.text() {
		t.Fatalf("unit file: %v\n%s", err, data)
	}
	want := []string{"systemctl --user daemon-reload", "systemctl --user enable --now ostset.service"}
	if !slices.Equal(fake.ran, want) {
		t.Errorf("install ran %q, want %q", fake.ran, want)
	}

	fake.ran = nil
	if err := u.uninstall(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(u.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit file is still there: %v", err)
	}
	want = []string{"systemctl --user disable --now ostset.service", "systemctl --user daemon-reload"}
	if !slices.Equal(fake.ran, want) {
		t.Errorf("uninstall ran %q, want %q", fake.ran, want)
	}
	if err := u.uninstall(context.Background(), false); exitCode(err) != exitInvalid || !strings.Contains(err.Error(), "nothing to uninstall") {
		t.Errorf("second uninstall: %v", err)
	}

	// A failing systemctl is an error that names the unit written.
	fake = fakeSystemctl{fail: "systemctl --user enable --now ostset.service"}
	if err := u.install(context.Background(), false); err == nil || !strings.Contains(err.Error(), u.path) {
		t.Errorf("install with systemctl failing: %v", err)
	}
}

// --dry-run, run for real: the unit and the commands, and nothing written.
func TestDaemonInstallDryRun(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	state := filepath.Join(t.TempDir(), "state")
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), []string{"daemon", "install", "--dry-run", "--state-dir", state}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	bin, _ := os.Executable()
	bin, _ = filepath.EvalSymlinks(bin)
	out := stdout.String()
	for _, want := range []string{
		"# " + filepath.Join(config, "systemd", "user", "ostset.service") + "\n",
		"\nExecStart=" + bin + " daemon --state-dir " + state + "\n",
		"\nsystemctl --user daemon-reload\nsystemctl --user enable --now ostset.service\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if entries, _ := os.ReadDir(config); len(entries) != 0 {
		t.Errorf("the dry run wrote %v", entries)
	}
	stdout.Reset()
	if err := Run(context.Background(), []string{"daemon", "uninstall", "--dry-run", "--state-dir", state}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "systemctl --user disable --now ostset.service\nrm ") {
		t.Errorf("uninstall dry run:\n%s", stdout.String())
	}
}
