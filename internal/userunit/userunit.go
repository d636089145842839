// Package userunit runs the ostset daemon as a user service: on Linux a
// systemd user unit, on macOS a launchd user agent (launchd.go); the file it
// writes, and the commands that enable, start, stop and remove it. Windows has
// neither: Install says what to do there. It knows nothing of sets, the engine, Docker or the command
// line: it must not import them (nor cobra).
package userunit

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
)

// NotInstalledError is Uninstall's answer when there is no unit file.
type NotInstalledError struct{ Path string }

func (e *NotInstalledError) Error() string {
	return fmt.Sprintf("daemon uninstall: %s does not exist: nothing to uninstall", e.Path)
}

// Name is the systemd user unit that runs the daemon.
const Name = "ostset.service"

// Unit is the daemon as a systemd user service: what to write where, and
// how to tell systemd.
type Unit struct {
	// GOOS picks the service manager: "darwin" launchd, "windows" none,
	// anything else systemd.
	GOOS     string
	UID      int      // the user's uid, for launchctl's gui/UID domain
	Path     string   // the unit file
	Binary   string   // absolute path of ostset
	StateDir string   // empty: the default, which the daemon finds by itself
	Env      []string // NAME=VALUE, for the service
	// Run runs one command; nil runs the program (RunCommand).
	Run    func(ctx context.Context, name string, args ...string) error
	Stdout io.Writer
}

// Text is the unit file.
func (u *Unit) Text() string {
	if u.GOOS == "darwin" {
		return u.plist()
	}
	exec := []string{quote(u.Binary), "daemon"}
	if u.StateDir != "" {
		exec = append(exec, "--state-dir", quote(u.StateDir))
	}
	var b strings.Builder
	b.WriteString("# Written by 'ostset daemon install'; 'ostset daemon uninstall' removes it.\n")
	b.WriteString("[Unit]\nDescription=ostset daemon: keeps the sets of a state directory converged\n")
	b.WriteString("Documentation=https://github.com/ostset/ostset/blob/main/docs/operating.md\n\n")
	b.WriteString("[Service]\n")
	for _, e := range u.Env {
		fmt.Fprintf(&b, "Environment=%s\n", quote(e))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(exec, " "))
	b.WriteString("Restart=on-failure\nRestartSec=5s\n\n")
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return b.String()
}

// quote quotes a word for a unit file when it needs quotes.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;$%") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// installCommands and uninstallCommands are what install and uninstall run,
// around writing or removing the unit file.
func (u *Unit) installCommands() [][]string {
	if u.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootstrap", u.domain(), u.Path}}
	}
	return [][]string{
		{"systemctl", "--user", "daemon-reload"},
		{"systemctl", "--user", "enable", "--now", Name},
	}
}

func (u *Unit) uninstallCommands() [][]string {
	if u.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootout", u.domain() + "/" + Label}}
	}
	return [][]string{
		{"systemctl", "--user", "disable", "--now", Name},
	}
}

func (u *Unit) runAll(ctx context.Context, cmds [][]string) error {
	run := u.Run
	if run == nil {
		run = RunCommand
	}
	for _, c := range cmds {
		if err := run(ctx, c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// Install writes the unit and enables and starts it; dryRun only says so.
func (u *Unit) Install(ctx context.Context, dryRun bool) error {
	if u.GOOS == "windows" {
		return u.windows()
	}
	text := u.Text()
	if dryRun {
		fmt.Fprintf(u.Stdout, "# %s\n%s\n", u.Path, text)
		for _, c := range u.installCommands() {
			fmt.Fprintln(u.Stdout, strings.Join(c, " "))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
		return fmt.Errorf("daemon install: %w", err)
	}
	if err := os.WriteFile(u.Path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("daemon install: %w", err)
	}
	if u.GOOS == "darwin" {
		_ = u.runAll(ctx, u.uninstallCommands()) // an agent loaded before is replaced
	}
	if err := u.runAll(ctx, u.installCommands()); err != nil {
		return fmt.Errorf("daemon install: %w (the unit is written: %s)", err, u.Path)
	}
	if u.GOOS == "darwin" {
		fmt.Fprintf(u.Stdout, "installed %s and started it (launchctl print %s/%s); it starts at each login\n", u.Path, u.domain(), Label)
		return nil
	}
	fmt.Fprintf(u.Stdout, "installed %s and started it (systemctl --user status %s); to keep it running while you are logged out: loginctl enable-linger\n", u.Path, Name)
	return nil
}

// Uninstall stops and disables the unit and removes its file; dryRun only says so.
func (u *Unit) Uninstall(ctx context.Context, dryRun bool) error {
	if u.GOOS == "windows" {
		return u.windows()
	}
	reload := [][]string{{"systemctl", "--user", "daemon-reload"}}
	if u.GOOS == "darwin" {
		reload = nil // launchd forgets an agent at bootout
	}
	if dryRun {
		for _, c := range u.uninstallCommands() {
			fmt.Fprintln(u.Stdout, strings.Join(c, " "))
		}
		fmt.Fprintf(u.Stdout, "rm %s\n", u.Path)
		for _, c := range reload {
			fmt.Fprintln(u.Stdout, strings.Join(c, " "))
		}
		return nil
	}
	if _, err := os.Stat(u.Path); errors.Is(err, os.ErrNotExist) {
		return &NotInstalledError{Path: u.Path}
	}
	if err := u.runAll(ctx, u.uninstallCommands()); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	if err := os.Remove(u.Path); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	if err := u.runAll(ctx, reload); err != nil {
		return fmt.Errorf("daemon uninstall: %w", err)
	}
	fmt.Fprintf(u.Stdout, "stopped the daemon and removed %s\n", u.Path)
	return nil
}

// RunCommand runs a program, turning a failure into an error with its output.
func RunCommand(ctx context.Context, name string, args ...string) error {
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

// DockerEnv is the environment the service needs to reach the engine this
// command reaches: a service gets none of the shell's. A --context given to
// install (flagContext) becomes DOCKER_CONTEXT and beats DOCKER_HOST, as the
// flag does; otherwise the docker variables that are set are passed on.
// DOCKER_CONFIG is passed on either way: it holds the context store.
func DockerEnv(flagContext string, getenv func(string) string) []string {
	var env []string
	names := []string{"DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT", "DOCKER_API_VERSION", "DOCKER_CONFIG"}
	if flagContext != "" {
		env = append(env, "DOCKER_CONTEXT="+flagContext)
		names = []string{"DOCKER_API_VERSION", "DOCKER_CONFIG"}
	}
	for _, n := range names {
		if v := getenv(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	return env
}
