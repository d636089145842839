package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/liveness"
	"github.com/ostset/ostset/engine/prober"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
	"github.com/ostset/ostset/internal/present"
	"github.com/ostset/ostset/internal/userdirs"
)

// app is what every command shares: settings, output streams, and lazily the
// Docker connection.
type app struct {
	v      *viper.Viper
	stdout io.Writer
	stderr io.Writer
	rt     *docker.Runtime
	// dockerContext is --context: the docker context whose engine to use.
	dockerContext string
	// engineRT, when set (by tests), is the runtime controllers use instead of Docker.
	engineRT engine.Runtime
	// marks holds, by set, the number of the set's newest event from before this
	// command changed the set: a wait that follows the daemon relays what the
	// daemon recorded after it.
	marks map[string]int64
	// dryRun: ostset diff (up --dry-run) loads files without writing their
	// ConfigMap and Secret files into the state directory.
	dryRun bool
	// made holds, by set, the update revision this command made (up, rollout
	// restart, rollout undo): its wait is for that revision, and fails if
	// another command replaces it before its rollout completes.
	made map[string]string
	// live is the tty progress block (--progress tty), jsonOut the real
	// stdout under --progress json; nil otherwise.
	live    *live.Block
	jsonOut *live.JSONLines
}

// madeRevision notes that this command made revision the set's update revision.
func (a *app) madeRevision(set, revision string) {
	if a.made == nil {
		a.made = map[string]string{}
	}
	a.made[set] = revision
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	return newRootFor(&app{v: viper.New(), stdout: stdout, stderr: stderr})
}

func newRootFor(a *app) *cobra.Command {
	a.stdout, a.stderr = present.Serialised(a.stdout, a.stderr)
	root := &cobra.Command{
		Use:           "ostset",
		Short:         "Kubernetes StatefulSet semantics on plain Docker",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.loadSettings(cmd); err != nil {
				return err
			}
			return a.setupProgress(cmd)
		},
		PersistentPostRun: func(*cobra.Command, []string) { a.close() },
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return invalidf("unknown command %q (see ostset --help)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().String("state-dir", "", "where desired specs and revision history live (env OSTSET_STATE_DIR)")
	root.PersistentFlags().String("config", "", "settings file (default $XDG_CONFIG_HOME/ostset/config.yaml; %APPDATA%\\ostset\\config.yaml on Windows)")
	root.PersistentFlags().StringVar(&a.dockerContext, "context", "", "docker context whose engine to use (default: DOCKER_HOST, DOCKER_CONTEXT, then docker's current context)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return invalid(err) })
	daemon := newDaemonCmd(a)
	daemon.AddCommand(newDaemonInstallCmd(a), newDaemonUninstallCmd(a))
	root.AddCommand(
		newUpCmd(a), newScaleCmd(a), newGetCmd(a), newStatusCmd(a), newDownCmd(a),
		newReconcileCmd(a), daemon, newVersionCmd(a),
		newLogsCmd(a), newRolloutCmd(a), newDescribeCmd(a), newEventsCmd(a), newRecreateCmd(a),
		newExportCmd(a), newConvertCmd(a), newProbeCmd(), newExecCmd(a), newVolumesCmd(a), newViewCmd(a), newDiffCmd(a),
	)
	installVerbs(root, a)
	return root
}

// loadSettings layers flags over OSTSET_* environment over the settings file.
func (a *app) loadSettings(cmd *cobra.Command) error {
	a.v.SetEnvPrefix("OSTSET")
	a.v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	a.v.AutomaticEnv()
	a.v.SetDefault("probe-starting", true) // see probeStarting
	if err := a.v.BindPFlags(cmd.Flags()); err != nil {
		return err
	}
	file, _ := cmd.Flags().GetString("config")
	if file == "" {
		file = userdirs.Process().ConfigFile()
		if _, err := os.Stat(file); err != nil {
			return nil
		}
	}
	a.v.SetConfigFile(file)
	if err := a.v.ReadInConfig(); err != nil {
		return invalidf("settings file %s: %w", file, err)
	}
	return nil
}

func (a *app) store() state.Store {
	dir := a.v.GetString("state-dir")
	if dir == "" {
		dir = userdirs.Process().State()
	}
	return state.Store{Dir: dir, Waiting: func(msg string) { fmt.Fprintf(a.stderr, "ostset: %s\n", msg) }}
}

// runtime connects to Docker (DOCKER_HOST etc.) on first use, and checks that
// the engine answers, so that later errors are about what was asked of it.
func (a *app) runtime() (*docker.Runtime, error) {
	if a.rt != nil {
		return a.rt, nil
	}
	rt, err := docker.Connect(a.dockerContext)
	if err != nil {
		return nil, invalid(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := rt.Ping(ctx); err != nil {
		_ = rt.Close()
		return nil, err
	}
	a.rt = rt
	return rt, nil
}

func (a *app) close() {
	if a.rt != nil {
		_ = a.rt.Close()
	}
}

// controller builds a controller whose progress lines go to stdout.
func (a *app) controller() (*engine.Controller, error) {
	rt := a.engineRT
	if rt == nil {
		d, err := a.runtime()
		if err != nil {
			return nil, err
		}
		rt = d
	}
	c := &engine.Controller{
		Runtime: rt,
		Store:   a.store(),
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Report:  a.reportFor(),
		Probe:   probeProgram(rt),
	}
	if ex, ok := rt.(prober.Exec); ok {
		c.Prober = prober.New(ex) // its goroutines end with the command
		c.Prober.WhileStarting = a.probeStarting()
		if lr, ok := rt.(liveness.Runtime); ok {
			c.Liveness = liveness.New(lr, nil).Waking(c.Prober.Changed)
		}
	}
	if a.live != nil {
		c.OnPlan = a.live.Plan
	}
	return c, nil
}

// probeStarting is the setting probe-starting (OSTSET_PROBE_STARTING), on
// unless set to false: whether the process that drives a set probes its
// starting replicas also where the engine runs healthchecks itself (Docker),
// so that a replica is ready when its healthcheck first passes, not one
// interval after it started (docs/set-file.md, Readiness).
func (a *app) probeStarting() bool { return a.v.GetBool("probe-starting") }

func (a *app) printEvent(e state.Event) {
	if e.Replica == "" {
		fmt.Fprintf(a.stdout, "%s: %s\n", e.Set, e.Message)
		return
	}
	fmt.Fprintln(a.stdout, e.Message)
}

// exactArgs is cobra.ExactArgs with the invalid-input exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return invalid(err)
		}
		return nil
	}
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MaximumNArgs(n)(cmd, args); err != nil {
			return invalid(err)
		}
		return nil
	}
}
