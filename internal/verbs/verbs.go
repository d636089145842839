// Package verbs holds the words users bring from kubectl and docker compose:
// aliases and small commands over ostset's own (delete is down, apply is up,
// restart is rollout restart, wait, ps, ls, config, edit), the help groups,
// the answers to words ostset cannot mean, did-you-mean for unknown commands
// and flags, and the docker CLI plugin's handshake. It runs the other commands
// through the command line only (Env.Run): it never reaches Docker or the
// controller itself.
package verbs

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
)

// Env is what the commands here are given by the CLI.
type Env struct {
	// Run runs an ostset command line (without "ostset") on a fresh command
	// tree, writing its standard output to stdout.
	Run func(ctx context.Context, args []string, stdout io.Writer) error
	// Sets lists the stored sets, by name.
	Sets func() ([]string, error)
	// Project is the compose project a stored set belongs to ("" for none).
	Project func(set string) (string, error)
	// Load reads a stored set's state (its labels, whether it is stopped).
	Load func(set string) (state.State, error)
	// SetStopped records a stored set as stopped (stop) or started again,
	// and reports whether that changed anything.
	SetStopped func(ctx context.Context, set string, stop bool) (bool, error)
	// Converge waits until the sets' passes (driven by this process, or by
	// a running daemon) have nothing left to do, as ostset reconcile does:
	// for a stopped set, until its replicas are stopped. timeout 0: none.
	Converge func(ctx context.Context, sets []string, timeout time.Duration) error
	// Version is ostset's version, for the docker CLI plugin metadata.
	Version string
	// Stats reads one sample of a replica container's resource use (nil
	// when the runtime gives none).
	Stats func(ctx context.Context, set, id string) (live.Usage, error)
	// Copy copies src to dst out of the set's container id, or with
	// toContainer into it (nil when the runtime is not Docker).
	Copy func(ctx context.Context, set, id string, toContainer bool, src, dst string) error
}

// InvalidError is invalid input (exit code 2): a word ostset does not know or
// cannot mean, with what to use instead.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalidf(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// groups are kubectl's help groups, and the commands of ostset in each.
var groups = []struct {
	id, title string
	commands  []string
}{
	{"basic", "Basic Commands:", []string{"up", "apply", "get", "ps", "ls", "status", "view", "edit", "delete", "down"}},
	{"deploy", "Deploy Commands:", []string{"rollout", "restart", "scale", "stop", "start", "recreate", "wait", "reconcile", "daemon"}},
	{"debug", "Troubleshooting and Debugging Commands:", []string{"describe", "logs", "events", "exec", "cp", "top", "volumes"}},
	{"advanced", "Advanced Commands:", []string{"diff", "config", "export", "convert", "probe"}},
	{"other", "Other Commands:", []string{"version"}},
}

// Install adds the commands of this package to root, sorts root's commands
// into kubectl's help groups, and makes root's errors for unknown flags and
// for kubectl's resource kinds given to get say what to type instead.
func Install(root *cobra.Command, env Env) {
	root.AddCommand(
		alias(env, []string{"up"}, "apply -f FILE [-f FILE...]", "Create or update the sets in FILE: kubectl's word for ostset up"),
		alias(env, []string{"down"}, "delete SET | delete -p PROJECT | delete -f FILE", "Delete a set (or the sets of a compose file): kubectl's word for ostset down"),
		alias(env, []string{"rollout", "restart"}, "restart SET",
			"Replace every replica in rollout order, one at a time, waiting for each to be ready: ostset rollout restart"),
		newStopStartCmd(env, true), newStopStartCmd(env, false), newWaitCmd(env), newPsCmd(env), newLsCmd(env), newConfigCmd(env), newEditCmd(env), newTopCmd(env), newCpCmd(env), newDocsCmd(),
	)
	for _, g := range groups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, name := range g.commands {
			if c, _, err := root.Find([]string{name}); err == nil && c != root {
				c.GroupID = g.id
			}
		}
	}
	root.SetHelpCommandGroupID("other")
	root.SetCompletionCommandGroupID("other")
	prev := root.FlagErrorFunc()
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if hint := flagHint(cmd, err); hint != "" {
			return prev(cmd, fmt.Errorf("%w: %s", err, hint))
		}
		return prev(cmd, err)
	})
	if logs, _, err := root.Find([]string{"logs"}); err == nil && logs != root {
		selectorLogs(logs, env)
	}
	if get, _, err := root.Find([]string{"get"}); err == nil && get != root {
		explainKinds(get, env)
		getOutputs(get, env)
	}
}

// alias is a command that runs ostset's own command target with the same
// arguments and flags (its --help is the target's).
func alias(env Env, target []string, use, short string) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		Long:               short + "\n\nIts arguments and flags are those of ostset " + strings.Join(target, " ") + " (ostset " + strings.Join(target, " ") + " --help).",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return env.Run(cmd.Context(), append(append([]string{}, target...), args...), cmd.OutOrStdout())
		},
		// Completion is the target's (set names for delete and restart).
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if t, _, err := cmd.Root().Find(target); err == nil && t.ValidArgsFunction != nil {
				return t.ValidArgsFunction(t, args, toComplete)
			}
			return nil, cobra.ShellCompDirectiveDefault
		},
	}
}

// inherited gives back the root's flags that the user set on cmd's command
// line (--state-dir, --config), for the commands cmd runs.
func inherited(cmd *cobra.Command) []string {
	var out []string
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	return out
}
