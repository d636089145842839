package main

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/logstream"
	"github.com/ostset/ostset/internal/suggest"
)

func newLogsCmd(a *app) *cobra.Command {
	var opts logsOptions
	cmd := &cobra.Command{
		Use:   "logs SET... | SET-ORDINAL [--init NAME] | -l SELECTOR",
		Short: "Print the logs of a set's replicas, of one replica, or of the sets a label selector matches",
		Long: `Print the logs (stdout and stderr) of every replica of SET, in ordinal order, or of
the one replica SET-ORDINAL (e.g. web-1); of several SETs, set by set; or, with -l
SELECTOR (kubectl's: app=web,tier!=cache), of every set whose labels (template.labels,
a StatefulSet's selector and labels, io.ostset.set) match. Each line is prefixed by the replica's name,
coloured per replica when stdout is a terminal. With --follow, lines are printed as they
arrive, interleaved across replicas, until Ctrl-C or every replica stops.

With --init NAME, print the output of the replica's init container NAME instead (its
container SET-ORDINAL-init-NAME), while it exists: init containers are removed once the
replica's own container exists.

With --previous, print the last lines of the replica's previous container: ostset
removes a replica container that exited to create it again, and keeps its last
200 lines first, as the lines needed to debug a crash loop.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalidf("logs takes SET..., SET-ORDINAL or -l SELECTOR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTail(opts.tail); err != nil {
				return err
			}
			if err := logstream.CheckSince(opts.since, opts.previous); err != nil {
				return invalid(err)
			}
			t, err := a.resolveLogTarget(args[0])
			for _, arg := range args[1:] { // several sets, whole (logs -l)
				if m, merr := a.resolveLogTarget(arg); err == nil && (merr != nil || !m.whole || !t.whole || opts.init != "" || opts.previous) {
					err = errors.Join(merr, invalidf("logs of several arguments takes whole SETs (not SET-ORDINAL, --init or --previous): %s", arg))
				}
				t.more = append(t.more, arg)
			}
			if err != nil {
				return err
			}
			if err := a.checkInitTarget(t, opts.init); err != nil {
				return err
			}
			if opts.previous {
				return a.printPrevious(t, opts)
			}
			opts.color = !opts.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(a.stdout)
			return a.printLogs(cmd.Context(), t, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.follow, "follow", "f", false, "keep printing new lines as they arrive")
	f.StringVar(&opts.tail, "tail", "all", `number of lines to show from the end of each replica's logs, or "all"`)
	f.StringVar(&opts.since, "since", "", "only lines written since this time: a duration back from now (10m, 1h30m) or an RFC 3339 time")
	f.BoolVar(&opts.noColor, "no-color", false, "do not colour the prefixes (also when NO_COLOR is set)")
	f.BoolVar(&opts.noPrefix, "no-prefix", false, "do not prefix lines with the replica name")
	f.StringVar(&opts.init, "init", "", "print the output of this init container of the replica SET-ORDINAL")
	f.BoolVarP(&opts.previous, "previous", "p", false, "print the last lines of the replica's previous container, one ostset removed after it failed")
	cmd.ValidArgsFunction = a.completeSetsAndReplicas
	return cmd
}

type logsOptions struct {
	follow   bool
	tail     string
	since    string
	noColor  bool
	noPrefix bool
	init     string // an init container's name: its logs instead of the replica's
	previous bool   // what was kept of the previous container (engine.Previous)
	color    bool   // decided at run time: a terminal and not disabled
}

func checkTail(tail string) error {
	if tail == "" || tail == "all" {
		return nil
	}
	if n, err := strconv.Atoi(tail); err != nil || n < 0 {
		return invalidf("--tail %q: want a number of lines or \"all\"", tail)
	}
	return nil
}

// logTarget is what `ostset logs ARG` names: a whole set, or one ordinal of it.
type logTarget struct {
	set     string
	whole   bool
	ordinal int
	name    string // the argument as given
	more    []string
}

// resolveLogTarget takes ARG as a known set, else as <set>-<ordinal> of a known set.
func (a *app) resolveLogTarget(arg string) (logTarget, error) {
	store := a.store()
	if _, err := store.Load(arg); err == nil {
		return logTarget{set: arg, whole: true, name: arg}, nil
	} else if !errors.Is(err, state.ErrUnknownSet) {
		return logTarget{}, err
	}
	sets, err := store.List()
	if err != nil {
		return logTarget{}, err
	}
	for _, set := range sets {
		if ord, ok := plan.ParseReplicaName(set, arg); ok {
			return logTarget{set: set, ordinal: ord, name: arg}, nil
		}
	}
	known := "no sets are known"
	if len(sets) > 0 {
		known = "known sets: " + strings.Join(sets, ", ")
	}
	return logTarget{}, invalidf("%q is neither a set nor a replica <set>-<ordinal> of one (%s; state dir %s)%s", arg, known, store.Dir, suggest.Target(arg, sets))
}

// checkInitTarget: --init names an init container of one replica, which one of
// the set's revisions has.
func (a *app) checkInitTarget(t logTarget, init string) error {
	if init == "" {
		return nil
	}
	if t.whole {
		return invalidf("--init %s: name one replica, %s-ORDINAL", init, t.set)
	}
	st, err := a.store().Load(t.set)
	if err != nil {
		return err
	}
	var known []string
	for _, r := range st.Revisions {
		for _, n := range r.Spec.Template.InitNames() {
			if n == init {
				return nil
			}
			if !slices.Contains(known, n) {
				known = append(known, n)
			}
		}
	}
	if len(known) == 0 {
		return invalidf("--init %s: set %s has no init containers", init, t.set)
	}
	return invalidf("--init %s: set %s has no init container %s (it has %s)", init, t.set, init, strings.Join(known, ", "))
}

// printLogs prints the logs of the target's replicas (see logstream.Print).
func (a *app) printLogs(ctx context.Context, t logTarget, opts logsOptions) error {
	if c, err := a.controller(); err == nil && !t.whole && opts.init == "" {
		if _, err := c.Replica(ctx, t.set, t.ordinal); err != nil {
			return err // one it does not have: say which it has
		}
	}
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	return logstream.Print(ctx, rt, a.stdout,
		logstream.Target{Set: t.set, Whole: t.whole, Ordinal: t.ordinal, Name: t.name, Init: opts.init, More: t.more},
		logstream.Options{Follow: opts.follow, Tail: opts.tail, NoPrefix: opts.noPrefix, Color: opts.color, Since: opts.since})
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// completeSetsAndReplicas offers the known sets and the names of their replicas.
// When Docker cannot be reached it offers the set names only.
func (a *app) completeSetsAndReplicas(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	sets, _ := a.store().List()
	out := append([]string(nil), sets...)
	rt, err := a.runtime()
	if err != nil {
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	parent := cmd.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, 3*time.Second)
	defer cancel()
	for _, set := range sets {
		// Only sets whose replica names could start with what was typed.
		if !strings.HasPrefix(set+"-", toComplete) && !strings.HasPrefix(toComplete, set+"-") {
			continue
		}
		obs, err := rt.Observe(ctx, set, engine.ObserveOptions{})
		if err != nil {
			break // Docker unreachable (or too slow): set names only
		}
		for _, r := range obs.Replicas {
			out = append(out, r.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
