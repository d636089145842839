package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/ostset/ostset/engine/setcheck"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/internal/present"
	"github.com/ostset/ostset/kube"
)

type waitFlags struct {
	wait    bool
	timeout time.Duration
}

// register adds --wait (on by default: without a daemon, nothing carries a
// change out once the command exits) and --timeout.
func (w *waitFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&w.wait, "wait", true, "wait until the rollout is complete (with a daemon running, follow its progress); --wait=false only stores the change")
	timeoutFlag(cmd, &w.timeout)
}

// timeoutFlag registers --timeout. By default a wait lasts until the rollout
// completes or passes its progress deadline, as kubectl rollout status does.
func timeoutFlag(cmd *cobra.Command, d *time.Duration) {
	progressFlag(cmd)
	cmd.Flags().DurationVar(d, "timeout", 0, "give up waiting after this long (exit code 3); 0: until the rollout completes or misses its progressDeadlineSeconds (exit code 1)")
}

// bound is ctx limited by --timeout, for the steps before the wait (another
// process may hold the set's lock).
func (w *waitFlags) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if w.timeout > 0 {
		return context.WithTimeout(ctx, w.timeout)
	}
	return context.WithCancel(ctx)
}

// then waits for the sets' rollouts when asked to, after a change that succeeded;
// not waiting, it says so when no daemon will carry the change out.
func (w *waitFlags) then(ctx context.Context, a *app, err error, names ...string) error {
	if err != nil {
		return err
	}
	if !w.wait {
		a.hintNoDaemon(names)
		return nil
	}
	return a.waitAll(ctx, w.timeout, names)
}

// hintNoDaemon says, when no daemon runs, that a stored change waits for a command.
func (a *app) hintNoDaemon(names []string) {
	if _, running := a.store().DaemonRunning(); running {
		return
	}
	fmt.Fprintf(a.stderr, "note: no daemon runs: the change is stored, not carried out; run 'ostset reconcile %s' or keep 'ostset daemon' running\n", strings.Join(names, " "))
}

// mark remembers where the sets' event logs stand before this command changes
// them (see app.marks).
func (a *app) mark(names ...string) {
	if a.marks == nil {
		a.marks = map[string]int64{}
	}
	for _, name := range names {
		if seq, err := a.store().EventSeq(name); err == nil {
			a.marks[name] = seq
		}
	}
}

func newUpCmd(a *app) *cobra.Command {
	var files []string
	var adopt, lenient, strict, build, dryRun bool
	var w waitFlags
	var cf composeFlags
	cmd := &cobra.Command{
		Use:   "up -f FILE [-f FILE...]",
		Short: "Create or update the sets in FILE and wait for their rollouts",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return invalidf("up: -f FILE is required")
			}
			if dryRun {
				return a.diff(cmd.Context(), files, cf, lenient, strict, "")
			}
			if isCompose, err := composeFiles(files); err != nil || isCompose {
				if err != nil {
					return err
				}
				return a.upCompose(cmd, files, cf, lenient, adopt, build, w)
			}
			sets, err := a.loadFiles(files, lenient, strict, true)
			if err == nil {
				err = a.checkOwners(sets, nil)
			}
			if err != nil {
				return err
			}
			cause := "ostset up -f " + strings.Join(files, " -f ")
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			if err := a.preflight(ctx, sets); err != nil {
				return err
			}
			adopted, err := a.claim(ctx, sets, adopt)
			if err != nil {
				return err
			}
			a.mark(setNames(sets)...)
			for _, s := range sets {
				if err := a.apply(ctx, s, cause); err != nil {
					return err
				}
				if err := a.adopt(ctx, s.Name, adopted[s.Name]); err != nil {
					return err
				}
			}
			return w.then(cmd.Context(), a, nil, setNames(sets)...)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file (YAML, one or more documents), or compose file")
	cmd.Flags().BoolVar(&lenient, "lenient", false, "go on when a Kubernetes manifest or a compose file has fields ostset cannot map: warn about each instead of failing")
	strictFlag(cmd, &strict)
	cmd.Flags().BoolVar(&build, "build", false, "compose: build the images of services with build: even when they exist")
	cf.register(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what up would change (as ostset diff) and change nothing; exit 1 when something would")
	cmd.Flags().BoolVar(&adopt, "adopt", false, "take over the sets' containers and volumes that another state directory created")
	w.register(cmd)
	return cmd
}

// strictFlag is --strict: a Kubernetes manifest's fields that only a cluster
// applies (affinity, tolerations, a PodDisruptionBudget...) are errors
// rather than notes.
func strictFlag(cmd *cobra.Command, strict *bool) {
	cmd.Flags().BoolVar(strict, "strict", false, "refuse a Kubernetes manifest's fields that only a cluster applies (affinity, tolerations, a PodDisruptionBudget, livenessProbe...) instead of noting each")
}

// loadFiles parses every file as one (a StatefulSet may use a Service,
// ConfigMap or Secret of another file), telling warn about variables that are
// not set and what a Kubernetes manifest loses; bind-mount sources are made
// absolute relative to the file that names them. The files of the
// StatefulSets' ConfigMap and Secret volumes are written under the state
// directory. run: the sets are to run here, so the values of their variables
// from Secrets and ConfigMaps must be there (see CheckEnvValues).
func (a *app) loadFiles(files []string, lenient, strict, run bool) ([]config.Set, error) {
	configDir := a.store().ConfigDir()
	loader := config.Loader{LookupEnv: os.LookupEnv, Warn: a.warn, Lenient: lenient, ConfigDir: configDir, Manifests: kube.Manifests{Strict: strict}}
	sets, configFiles, err := loader.LoadFiles(files)
	if err != nil {
		return nil, invalid(err)
	}
	for i := range sets {
		file, _, _ := strings.Cut(sets[i].Source, ":")
		sets[i].AbsoluteBindSources(filepath.Dir(file))
	}
	if err := a.store().CheckEnvValues(sets, configFiles); run && err != nil {
		return nil, invalid(err)
	}
	if a.dryRun { // ostset diff writes nothing
		return sets, nil
	}
	if err := a.store().WriteConfigFiles(configFiles); err != nil {
		return nil, err
	}
	return sets, nil
}

// preflight checks the sets against the engine's host before anything is
// stored (engine.Controller.Preflight): what the engine would refuse is
// invalid input, reported with its file line (exit code 2).
func (a *app) preflight(ctx context.Context, sets []config.Set) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	if err := a.checkStartInterval(sets); err != nil {
		return err
	}
	err = c.Preflight(ctx, sets)
	if he := (*engine.HostError)(nil); errors.As(err, &he) {
		return invalid(err)
	}
	if rt, ok := c.Runtime.(*docker.Runtime); ok && err == nil && !rt.EngineIsLocal() {
		for _, w := range setcheck.UncheckedBinds(sets, a.store().ConfigDir(), rt.DaemonHost()) {
			a.warn(w)
		}
	}
	return err
}

// checkStartInterval refuses a healthcheck startInterval the engine would
// drop without a word (API below 1.44).
func (a *app) checkStartInterval(sets []config.Set) error {
	for _, s := range sets {
		if h := s.Template.Healthcheck; h == nil || h.StartInterval == 0 {
			continue
		}
		rt, err := a.runtime()
		if err != nil || rt.HasStartInterval() {
			return nil // the create reports it
		}
		where := s.Source
		if line := s.Lines["template.healthcheck.startInterval"]; line > 0 {
			where = fmt.Sprintf("%s:%d", strings.Split(s.Source, ":")[0], line)
		}
		return invalidf("%s: template.healthcheck.startInterval: %s", where, docker.StartIntervalUnsupported(rt.APIVersion()))
	}
	return nil
}

// warn writes a warning to stderr, one line.
func (a *app) warn(msg string) {
	fmt.Fprintln(a.stderr, "warning:", msg)
}

func setNames(sets []config.Set) []string {
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.Name
	}
	return names
}

// apply stores a set's desired spec and makes its template the update revision.
func (a *app) apply(ctx context.Context, s config.Set, cause string) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	res, err := a.applyWithPull(ctx, c, s, cause)
	if err != nil {
		return err
	}
	st := res.State
	a.madeRevision(s.Name, st.UpdateRevision) // changed or not, the revision this file asks for
	switch {
	case res.Created:
		fmt.Fprintf(a.stdout, "%s: created (revision %s)\n", s.Name, st.UpdateRevision)
	case res.Changed:
		fmt.Fprintf(a.stdout, "%s: new revision %s (current %s)\n", s.Name, st.UpdateRevision, orDefault(st.CurrentRevision, "none yet"))
	default:
		fmt.Fprintf(a.stdout, "%s: revision %s unchanged\n", s.Name, st.UpdateRevision)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(a.stdout, "%s: %s\n", s.Name, n)
	}
	for _, w := range res.Warnings {
		a.warn(s.Name + ": " + w)
	}
	return nil
}

// waitAll waits for the named sets concurrently until complete or timeout:
// following the daemon's progress when one runs, driving the rollouts otherwise.
func (a *app) waitAll(ctx context.Context, timeout time.Duration, names []string) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	return a.converge(ctx, c, timeout, names, true)
}

func (a *app) converge(ctx context.Context, c *engine.Controller, timeout time.Duration, names []string, sayComplete bool) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	_, daemon := a.store().DaemonRunning()
	g, gctx := errgroup.WithContext(ctx)
	for _, name := range names {
		revision := a.made[name]
		wait := func(ctx context.Context, name string) error { return c.ConvergeTo(ctx, name, revision) }
		if daemon {
			after, marked := a.marks[name]
			if !marked {
				after, _ = c.Store.EventSeq(name)
			}
			wait = func(ctx context.Context, name string) error { return c.Follow(ctx, name, after, revision) }
		}
		g.Go(func() error {
			err := wait(gctx, name)
			if deleted := (*engine.DeletedError)(nil); errors.As(err, &deleted) && deleted.Finished {
				fmt.Fprintf(a.stdout, "%s: deleted (the interrupted ostset down is finished)\n", name)
				return nil
			}
			if err != nil {
				return waitError(name, timeout, err)
			}
			if sayComplete {
				if s, short := pausedStatus(gctx, c, name); short {
					fmt.Fprintln(a.stdout, present.PausedLine(name, s))
					return nil
				}
				if st, err := c.Store.Load(name); err == nil && st.Stopped { // no rollout while stopped
					fmt.Fprintf(a.stdout, "%s: stopped ('ostset start %s' starts it)\n", name, name)
					return nil
				}
				fmt.Fprintf(a.stdout, "%s: rollout complete\n", name)
				if st, err := c.Store.Load(name); err == nil && st.Paused {
					fmt.Fprintf(a.stdout, "%s: the rollout is paused: replicas are not replaced until 'ostset rollout resume %s'\n", name, name)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// waitError says how a wait for a set's rollout ended short of completion.
func waitError(name string, timeout time.Duration, err error) error {
	var stopped *engine.StoppedError
	if !errors.As(err, &stopped) {
		return fmt.Errorf("%s: %w", name, err)
	}
	where := ""
	for _, s := range []string{stopped.Where, stopped.Detail} {
		if s != "" {
			where += "; " + s
		}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{code: exitInterrupted, err: fmt.Errorf(
			"%s: interrupted%s. Nothing was undone; to go on, run 'ostset reconcile %s' (or this command again), or keep 'ostset daemon' running",
			name, where, name)}
	}
	return &exitError{code: exitTimedOut, err: fmt.Errorf("%s: rollout not complete after %s%s", name, timeout, where)}
}
