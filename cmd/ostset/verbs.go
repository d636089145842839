package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ostset/ostset/internal/verbs"
)

// installVerbs adds kubectl's and compose's words (internal/verbs), which run
// ostset's own commands on a fresh command tree with a's streams and runtime.
func installVerbs(root *cobra.Command, a *app) {
	verbs.Install(root, verbs.Env{
		Version: version,
		Sets:    func() ([]string, error) { return a.store().List() },
		Run: func(ctx context.Context, args []string, stdout io.Writer) error {
			sub := newRootFor(&app{v: viper.New(), stdout: stdout, stderr: a.stderr, engineRT: a.engineRT})
			sub.SetArgs(args)
			return sub.ExecuteContext(ctx)
		},
	})
}
