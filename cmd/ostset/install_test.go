package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// Uninstalling what is not installed is invalid input (exit code 2).
func TestDaemonUninstallNothing(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	state := filepath.Join(t.TempDir(), "state")
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"daemon", "uninstall", "--state-dir", state}, &stdout, &stderr)
	if exitCode(err) != exitInvalid || !strings.Contains(err.Error(), "nothing to uninstall") {
		t.Errorf("uninstall without a unit: %v", err)
	}
}
