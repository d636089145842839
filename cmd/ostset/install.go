package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/internal/userdirs"
	"github.com/ostset/ostset/internal/userunit"
)

// newUserUnit describes the unit for this binary and the app's settings.
func (a *app) newUserUnit() (*userunit.Unit, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("daemon install: the path of this program: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	env := userdirs.Process()
	u := &userunit.Unit{
		GOOS: env.GOOS, UID: os.Getuid(), Binary: bin, Stdout: a.stdout,
		Path: userunit.DefaultPath(env.GOOS, env.Home, env.ConfigHome()),
		Env:  userunit.DockerEnv(a.dockerContext, os.Getenv),
	}
	// A user service gets neither the shell's environment nor its XDG paths:
	// name the state directory unless it is the one the daemon finds by itself.
	if a.store().Dir != env.WithoutEnv().State() {
		u.StateDir = a.store().Dir
	}
	return u, nil
}

func newDaemonInstallCmd(a *app) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Run the daemon as a user service, now and at login: systemd (~/.config/systemd/user/ostset.service), launchd on macOS (~/Library/LaunchAgents/io.ostset.daemon.plist)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.newUserUnit()
			if err != nil {
				return err
			}
			if pid, running := a.store().DaemonRunning(); running && !dryRun {
				fmt.Fprintf(a.stderr, "note: a daemon already runs on %s (pid %d); the service retries every 5s until that one exits\n", a.store().Dir, pid)
			}
			return u.Install(cmd.Context(), dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the unit and the commands; change nothing")
	return cmd
}

func newDaemonUninstallCmd(a *app) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the daemon's user service (systemd, or launchd on macOS) and remove it",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := a.newUserUnit()
			if err != nil {
				return err
			}
			err = u.Uninstall(cmd.Context(), dryRun)
			if ni := (*userunit.NotInstalledError)(nil); errors.As(err, &ni) {
				return invalid(err)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the commands; change nothing")
	return cmd
}
