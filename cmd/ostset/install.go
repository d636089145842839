package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

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
	u := &userunit.Unit{
		Path:   filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "systemd", "user", userunit.Name),
		Binary: bin,
		Stdout: a.stdout,
	}
	// A user service gets neither the shell's environment nor its XDG paths:
	// name the state directory unless it is the one the daemon finds by itself.
	if home, err := os.UserHomeDir(); err != nil || a.store().Dir != filepath.Join(home, ".local", "state", "ostset") {
		u.StateDir = a.store().Dir
	}
	u.Env = userunit.DockerEnv(a.dockerContext, os.Getenv)
	return u, nil
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
		Short: "Stop the daemon's systemd user service and remove it",
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
