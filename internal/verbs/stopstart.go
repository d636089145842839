package verbs

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// newStopStartCmd is docker compose stop (stop) or start: a stopped set keeps
// its containers, stopped, and its volumes, and nothing heals it (not the
// daemon, not another command's passes) until start, or up, starts it again.
func newStopStartCmd(env Env, stop bool) *cobra.Command {
	var timeout time.Duration
	var wait bool
	var project string
	verb, done := "start", "started"
	short := "Start a stopped set's containers again, in ordinal order, and wait for its rollout: compose start"
	long := `Start the sets that ostset stop stopped, as docker compose start does: their
containers (the same ones, with their volumes) are started in the order of the
pod management policy (OrderedReady: each once the ones below it are ready;
Parallel: all at once), a replica removed meanwhile is created again at the
update revision, and the set is driven as usual again. It waits until the
rollout is complete, as ostset up does (--timeout: exit code 3).`
	if stop {
		verb, done = "stop", "stopped"
		short = "Stop a set's containers, keeping them and their volumes: compose stop"
		long = `Stop the sets' replicas, as docker compose stop does: each container is sent
its stop signal and given the set's terminationGracePeriodSeconds, from the
highest ordinal down (OrderedReady: one at a time; Parallel: all at once), and
kept, stopped, with its volumes. The set stays stopped: nothing starts,
recreates or replaces its replicas (not the daemon, not ostset reconcile) until
ostset start, or ostset up -f FILE, starts it again. scale and the rollout
commands refuse a stopped set. It waits until every replica is stopped
(--timeout: exit code 3).`
	}
	cmd := &cobra.Command{
		Use:     verb + " SET... | " + verb + " -p PROJECT",
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  ostset %s web\n  ostset %s web db --timeout 2m", verb, verb),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 && project == "" {
				return invalidf("%s takes one or more SETs, or -p PROJECT (ostset get lists them)", verb)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if project != "" {
				var err error
				if args, err = projectSets(env, verb, project, args); err != nil {
					return err
				}
			}
			for _, set := range args { // every name known before any set changes
				if _, err := env.Load(set); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			for _, set := range args {
				changed, err := env.SetStopped(cmd.Context(), set, stop)
				if err != nil {
					return err
				}
				switch {
				case !changed && stop:
					fmt.Fprintf(out, "%s: already stopped\n", set)
				case !changed:
					fmt.Fprintf(out, "%s: not stopped\n", set)
				}
			}
			if !wait {
				fmt.Fprintf(out, "recorded; a running daemon, or the next ostset reconcile, carries it out\n")
				return nil
			}
			if err := env.Converge(cmd.Context(), args, timeout); err != nil {
				return err
			}
			for _, set := range args {
				fmt.Fprintf(out, "%s: %s\n", set, done)
			}
			return nil
		},
	}
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		sets, _ := env.Sets()
		return sets, cobra.ShellCompDirectiveNoFileComp
	}
	cmd.Flags().StringVarP(&project, "project-name", "p", "", "every set of this compose project")
	cmd.Flags().BoolVar(&wait, "wait", true, "wait until it is carried out; --wait=false records it and returns")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up waiting after this long (exit code 3); 0: no limit")
	return cmd
}

// projectSets are the stored sets of a compose project, for a command given
// -p PROJECT and no SET.
func projectSets(env Env, verb, project string, args []string) ([]string, error) {
	if len(args) > 0 {
		return nil, invalidf("%s: give sets or -p PROJECT, not both", verb)
	}
	sets, err := env.Sets()
	if err != nil {
		return nil, err
	}
	byProject, err := projects(env, sets)
	if err != nil {
		return nil, err
	}
	if len(byProject[project]) == 0 {
		return nil, invalidf("%s -p %s: no stored set belongs to compose project %s (ostset ls lists the projects)", verb, project, project)
	}
	return byProject[project], nil
}
