package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
)

type waitFlags struct {
	wait    bool
	timeout time.Duration
}

func (w *waitFlags) register(cmd *cobra.Command, defaultWait bool) {
	cmd.Flags().BoolVar(&w.wait, "wait", defaultWait, "wait until the rollout is complete")
	cmd.Flags().DurationVar(&w.timeout, "timeout", 5*time.Minute, "give up waiting after this long (exit code 3)")
}

// then waits for the sets' rollouts when asked to, after a change that succeeded.
func (w *waitFlags) then(ctx context.Context, a *app, err error, names ...string) error {
	if err != nil || !w.wait {
		return err
	}
	return a.waitAll(ctx, w.timeout, names)
}

func newUpCmd(a *app) *cobra.Command {
	var files []string
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "up -f FILE [-f FILE...]",
		Short: "Create or update the sets in FILE and wait for their rollouts",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return invalidf("up: -f FILE is required")
			}
			sets, err := loadFiles(files)
			if err != nil {
				return err
			}
			cause := "ostset up -f " + strings.Join(files, " -f ")
			for _, s := range sets {
				if err := a.apply(cmd.Context(), s, cause); err != nil {
					return err
				}
			}
			return w.then(cmd.Context(), a, nil, setNames(sets)...)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file (YAML, one or more documents)")
	w.register(cmd, true)
	return cmd
}

// loadFiles parses every file; bind-mount sources are made absolute relative to
// the file that names them.
func loadFiles(files []string) ([]config.Set, error) {
	var sets []config.Set
	seen := map[string]string{}
	for _, f := range files {
		ss, err := config.Load(f, os.LookupEnv)
		if err != nil {
			return nil, invalid(err)
		}
		for _, s := range ss {
			if prev, dup := seen[s.Name]; dup {
				return nil, invalidf("%s: set %q is also defined at %s", s.Source, s.Name, prev)
			}
			seen[s.Name] = s.Source
			absoluteBindSources(&s, filepath.Dir(f))
			sets = append(sets, s)
		}
	}
	return sets, nil
}

func absoluteBindSources(s *config.Set, dir string) {
	for i, m := range s.Template.VolumeMounts {
		if strings.HasPrefix(m.Source, ".") {
			if abs, err := filepath.Abs(filepath.Join(dir, m.Source)); err == nil {
				s.Template.VolumeMounts[i].Source = abs
			}
		}
	}
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
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	imageID, err := a.ensureImage(ctx, rt, s)
	if err != nil {
		return err
	}
	now := time.Now()
	var changed, created bool
	st, err := a.store().Update(s.Name, func(st *engine.State, exists bool) error {
		created = !exists
		if !exists {
			st.Created = now
		}
		restartedAt := ""
		if cur, ok := st.Revision(st.UpdateRevision); ok {
			restartedAt = cur.Spec.RestartedAt
		}
		if !exists || specChanged(st.Spec, s) {
			st.Generation++
		}
		st.Spec = s
		spec := s.RevisionSpec(imageID)
		spec.RestartedAt = restartedAt
		changed = st.SetUpdateRevision(spec, cause, now)
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case created:
		fmt.Fprintf(a.stdout, "%s: created (revision %s)\n", s.Name, st.UpdateRevision)
	case changed:
		fmt.Fprintf(a.stdout, "%s: new revision %s (current %s)\n", s.Name, st.UpdateRevision, st.CurrentRevision)
	default:
		fmt.Fprintf(a.stdout, "%s: revision %s unchanged\n", s.Name, st.UpdateRevision)
	}
	return nil
}

// specChanged compares specs as stored, ignoring where they were read from.
func specChanged(old, new config.Set) bool {
	old.Source, new.Source = "", ""
	return !jsonEqual(old, new)
}

// waitAll converges the named sets concurrently until complete or timeout.
func (a *app) waitAll(ctx context.Context, timeout time.Duration, names []string) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	return a.converge(ctx, c, timeout, names, true)
}

func (a *app) converge(ctx context.Context, c *engine.Controller, timeout time.Duration, names []string, sayComplete bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for _, name := range names {
		g.Go(func() error {
			if err := c.Converge(gctx, name); err != nil {
				return waitError(name, timeout, err)
			}
			if sayComplete {
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

func waitError(name string, timeout time.Duration, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		detail := strings.TrimPrefix(err.Error(), context.DeadlineExceeded.Error())
		return &exitError{code: exitTimedOut, err: fmt.Errorf("%s: rollout not complete after %s%s", name, timeout, detail)}
	}
	return fmt.Errorf("%s: %w", name, err)
}
