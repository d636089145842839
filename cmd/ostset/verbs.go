package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ostset/ostset/config"
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
