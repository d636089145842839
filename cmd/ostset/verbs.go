package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
	"github.com/ostset/ostset/internal/verbs"
)

// installVerbs adds kubectl's and compose's words (internal/verbs), which run
// ostset's own commands on a fresh command tree with a's streams and runtime.
func installVerbs(root *cobra.Command, a *app) {
	env := verbs.Env{
		Version: version,
		Sets:    func() ([]string, error) { return a.store().List() },
		Project: func(set string) (string, error) {
			st, err := a.store().Load(set)
			return st.Spec.Template.Labels[config.LabelComposeProject], err
		},
		Load: func(set string) (state.State, error) { return a.store().Load(set) },
		SetStopped: func(ctx context.Context, set string, stop bool) (changed bool, err error) {
			a.mark(set) // a daemon's progress is followed from here
			_, err = a.store().Update(ctx, set, func(st *state.State, exists bool) error {
				if !exists {
					return a.store().Unknown(set)
				}
				if stop {
					changed = st.Stop()
				} else {
					changed = st.Start()
				}
				st.ReopenProgress()
				return nil
			})
			return changed, err
		},
		Converge: func(ctx context.Context, sets []string, timeout time.Duration) error {
			c, err := a.controller()
			if err != nil {
				return err
			}
			return a.converge(ctx, c, timeout, sets, false)
		},
		Run: func(ctx context.Context, args []string, stdout io.Writer) error {
			sub := newRootFor(&app{v: viper.New(), stdout: stdout, stderr: a.stderr, engineRT: a.engineRT})
			sub.SetArgs(args)
			return sub.ExecuteContext(ctx)
		},
	}
	if a.engineRT == nil { // Docker's stats; the runtime of tests has none
		env.Stats = func(ctx context.Context, set, id string) (live.Usage, error) {
			rt, err := a.runtime()
			if err != nil {
				return live.Usage{}, err
			}
			s, err := rt.Stats(ctx, set, id)
			return live.Usage{CPU: s.CPU, System: s.System, OnlineCPUs: s.OnlineCPUs, Memory: s.Memory, At: s.At}, err
		}
		env.Copy = func(ctx context.Context, set, id string, toContainer bool, src, dst string) error {
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			if toContainer {
				return rt.CopyTo(ctx, set, id, src, dst)
			}
			return rt.CopyFrom(ctx, set, id, src, dst)
		}
	}
	verbs.Install(root, env)
}
