package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// unitName is the systemd user unit that runs the daemon.
const unitName = "ostset.service"

// userUnit is the daemon as a systemd user service: what to write where, and
// how to tell systemd. run runs one command; tests replace it.
type userUnit struct {
	path     string // the unit file
	binary   string // absolute path of ostset
	stateDir string // empty: the default, which the daemon finds by itself
	env      []string
	run      func(ctx context.Context, name string, args ...string) error
	stdout   io.Writer
}

// newUserUnit describes the unit for this binary and the app's settings.
func (a *app) newUserUnit() (*userUnit, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("daemon install: the path of this program: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	u := &userUnit{
		path:   filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "systemd", "user", unitName),
		binary: bin,
		run:    runCommand,
		stdout: a.stdout,
	}
	// A user service gets neither the shell's environment nor its XDG paths:
	// name the state directory unless it is the one the daemon finds by itself.
	if home, err := os.UserHomeDir(); err != nil || a.store().Dir != filepath.Join(home, ".local", "state", "ostset") {
		u.stateDir = a.store().Dir
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		u.env = append(u.env, "DOCKER_HOST="+h)
	}
	return u, nil
}

// text is the unit file.
func (u *userUnit) text() string {
	exec := []string{systemdQuote(u.binary), "daemon"}
	if u.stateDir != "" {
		exec = append(exec, "--state-dir", systemdQuote(u.stateDir))
	}
	var b strings.Builder
	b.WriteString("# Written by 'ostset daemon install'; 'ostset daemon uninstall' removes it.\n")
	b.WriteString("[Unit]\nDescription=ostset daemon: keeps the sets of a state directory converged\n")
	b.WriteString("Documentation=https://github.com/ostset/ostset/blob/main/docs/operating.md\n\n")
	b.WriteString("[Service]\n")
	for _, e := range u.env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(e))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(exec, " "))
	b.WriteString("Restart=on-failure\nRestartSec=5s\n\n")
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return b.String()
}

// systemdQuote quotes a word for a unit file when it needs quotes.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;$%") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// installCommands and uninstallCommands are what install and uninstall run,
// around writing or removing the unit file.
func installCommands() [][]string {
	return [][]string{
		{"systemctl", "--user", "daemon-reload"},
		{"systemctl", "--user", "enable", "--now", unitName},
	}
}

func uninstallCommands() [][]string {
	return [][]string{
		{"systemctl", "--user", "disable", "--now", unitName},
	}
}

func (u *userUnit) runAll(ctx context.Context, cmds [][]string) error {
	for _, c := range cmds {
		if err := u.run(ctx, c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// install writes the unit and enables and starts it; dryRun only says so.
func (u *userUnit) install(ctx context.Context, dryRun bool) error {
	text := u.text()
	if dryRun {
		fmt.Fprintf(u.stdout, "# %s\n%s\n", u.path, text)
		for _, c := range installCommands() {
			fmt.Fprintln(u.stdout, strings.Join(c, " "))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(u.path), 0o755); err != nil {
		return fmt.Errorf("daemon install: %w", err)
	}
	if err := os.WriteFile(u.path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("daemon install: %w", err)
	}
	if err := u.runAll(ctx, installCommands()); err != nil {
		return fmt.Errorf("daemon install: %w (the unit is written: %s)", err, u.path)
	}
	fmt.Fprintf(u.stdout, "installed %s and started it (systemctl --user status %s); to keep it running while you are logged out: loginctl enable-linger\n", u.path, unitName)
	return nil
}

// uninstall stops and disables the unit and removes its file; dryRun only says so.
func (u *userUnit) uninstall(ctx context.Context, dryRun bool) error {
	reload := []string{"systemctl", "--user", "daemon-reload"}
	if dryRun {
		for _, c := range uninstallCommands() {
			fmt.Fprintln(u.stdout, strings.Join(c, " "))
		}
		fmt.Fprintf(u.stdout, "rm %s\n%s\n", u.path, strings.Join(reload, " "))
		return nil
	}
	if _, err := os.Stat(u.path); errors.Is(err, os.ErrNotExist) {
		return invalidf("daemon uninstall: %s does not exist: nothing to uninstall", u.path)
	}
	if err := u.runAll(ctx, uninstallCommands()); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	if err := os.Remove(u.path); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	if err := u.runAll(ctx, [][]string{reload}); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	fmt.Fprintf(u.stdout, "stopped the daemon and removed %s\n", u.path)
	return nil
}

// runCommand runs a program, turning a failure into an error with its output.
func runCommand(ctx context.Context, name string, args ...string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg != "" {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
		}
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

func newDaemonInstallCmd(a *app) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Run the daemon as a systemd user service (~/.config/systemd/user/ostset.service), now and at login",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.newUserUnit()
			if err != nil {
				return err
			}
			if pid, running := a.store().DaemonRunning(); running && !dryRun {
				fmt.Fprintf(a.stderr, "note: a daemon already runs on %s (pid %d); the service retries every 5s until that one exits\n", a.store().Dir, pid)
			}
			return u.install(cmd.Context(), dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the unit and the commands; change nothing")
	return cmd
}

func newDaemonUninstallCmd(a *app) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the daemon's systemd user service and remove it",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.newUserUnit()
			if err != nil {
				return err
			}
			return u.uninstall(cmd.Context(), dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the commands; change nothing")
	return cmd
}
