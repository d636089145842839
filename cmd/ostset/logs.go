package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

func newLogsCmd(a *app) *cobra.Command {
	var opts logsOptions
	cmd := &cobra.Command{
		Use:   "logs SET | SET-ORDINAL [--init NAME]",
		Short: "Print the logs of a set's replicas, or of one replica",
		Long: `Print the logs (stdout and stderr) of every replica of SET, in ordinal order, or of
the one replica SET-ORDINAL (e.g. web-1). Each line is prefixed by the replica's name,
coloured per replica when stdout is a terminal. With --follow, lines are printed as they
arrive, interleaved across replicas, until Ctrl-C or every replica stops.

With --init NAME, print the output of the replica's init container NAME instead (its
container SET-ORDINAL-init-NAME), while it exists: init containers are removed once the
replica's own container exists.

With --previous, print the last lines of the replica's previous container: ostset
removes a replica container that exited to create it again, and keeps its last
200 lines first, as the lines needed to debug a crash loop.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTail(opts.tail); err != nil {
				return err
			}
			t, err := a.resolveLogTarget(args[0])
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
	return logTarget{}, invalidf("%q is neither a set nor a replica <set>-<ordinal> of one (%s; state dir %s)%s", arg, known, store.Dir, suggestTarget(arg, sets))
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

// printLogs prints the logs of the target's replicas: one after the other in
// ordinal order, or with follow all at once, interleaved line by line.
func (a *app) printLogs(parent context.Context, t logTarget, opts logsOptions) error {
	// ctx also ends when stdout fails, so that every stream stops.
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	obs, err := rt.Observe(ctx, t.set, engine.ObserveOptions{})
	if err != nil {
		return err
	}
	var replicas []plan.Replica // sorted by ordinal, as Observe returns them
	for _, r := range obs.Replicas {
		if (t.whole || r.Ordinal == t.ordinal) && opts.init == "" {
			replicas = append(replicas, r)
		}
	}
	for _, c := range obs.Inits {
		if c.Ordinal == t.ordinal && c.Init == opts.init && opts.init != "" {
			replicas = append(replicas, plan.Replica{ID: c.ID, Name: c.Name, Ordinal: c.Ordinal})
		}
	}
	if len(replicas) == 0 && opts.init != "" {
		return fmt.Errorf("replica %s has no init container %s now: init containers are removed once the replica's container exists", t.name, opts.init)
	}
	if len(replicas) == 0 {
		if t.whole {
			return nil // a set with no containers has no logs
		}
		return fmt.Errorf("replica %s of set %s has no container", t.name, t.set)
	}

	width := 0
	for _, r := range replicas {
		width = max(width, len(r.Name))
	}
	out := &lineWriter{w: a.stdout, failed: cancel}
	stream := func(r plan.Replica) error {
		rc, err := rt.Logs(ctx, t.set, r.ID, opts.follow, opts.tail)
		if err != nil {
			if t.whole && cerrdefs.IsNotFound(err) {
				return nil // removed since Observe (e.g. mid-rollout): nothing to print
			}
			return err
		}
		defer func() { _ = rc.Close() }()
		stop := context.AfterFunc(ctx, func() { _ = rc.Close() }) // unblock a pending read on Ctrl-C
		defer stop()
		prefix := ""
		if !opts.noPrefix {
			prefix = logPrefix(r, width, opts.color)
		}
		return out.copyLines(rc, prefix)
	}

	var errs []error
	if !opts.follow {
		for _, r := range replicas {
			if ctx.Err() != nil {
				break
			}
			if err := stream(r); err != nil {
				errs = append(errs, err)
			}
		}
	} else {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, r := range replicas {
			wg.Go(func() {
				if err := stream(r); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if err := out.failure(); err != nil {
		return err
	}
	if parent.Err() != nil {
		return nil // interrupted (Ctrl-C): a clean stop
	}
	return errors.Join(errs...)
}

// logPalette is compose's: cyan, yellow, green, magenta, blue, then the bright ones.
var logPalette = []string{"36", "33", "32", "35", "34", "36;1", "33;1", "32;1", "35;1", "34;1"}

// logPrefix is "name<padding> | ", coloured by ordinal when asked.
func logPrefix(r plan.Replica, width int, color bool) string {
	p := fmt.Sprintf("%-*s |", width, r.Name)
	if color {
		n := len(logPalette)
		p = "\x1b[" + logPalette[((r.Ordinal%n)+n)%n] + "m" + p + "\x1b[0m"
	}
	return p + " "
}

// lineWriter writes whole lines, each in one Write under its lock, so lines of
// concurrent streams never interleave mid-line. After a failed write it keeps
// the error, calls failed and drops everything else.
type lineWriter struct {
	w      io.Writer
	failed func()

	mu  sync.Mutex
	buf []byte
	err error
}

func (lw *lineWriter) failure() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// copyLines copies r to the writer line by line, each with the prefix, keeping
// long lines whole; a last line without a newline gets one. It returns nil at
// the end of r, and the read error otherwise.
func (lw *lineWriter) copyLines(r io.Reader, prefix string) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if werr := lw.writeLine(prefix, line); werr != nil {
				return nil // reported once, by printLogs
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (lw *lineWriter) writeLine(prefix, line string) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	lw.buf = append(append(lw.buf[:0], prefix...), line...)
	if !strings.HasSuffix(line, "\n") {
		lw.buf = append(lw.buf, '\n')
	}
	if _, err := lw.w.Write(lw.buf); err != nil {
		lw.err = fmt.Errorf("write logs: %w", err)
		lw.failed()
	}
	return lw.err
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
