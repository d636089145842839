package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

func newGetCmd(a *app) *cobra.Command {
	var output string
	var watch bool
	cmd := &cobra.Command{
		Use:   "get [SET]",
		Short: "List sets, or one set's replicas",
		Long: `List sets, or one set's replicas: every desired ordinal is a row, also one
that does not exist yet or cannot start, with its reason.

With -w, print the table, then a row each time a set (or, with SET, a
replica) changes, until Ctrl-C. Changes come from Docker's events and the
state directory, with or without a daemon. With -o json -w, one JSON
object per line and per change.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			output = a.format(cmd, output, "wide", "json", "yaml")
			if err := checkFormat(output, "", "wide", "json", "yaml"); err != nil {
				return err
			}
			if watch && output == "yaml" {
				return invalidf("-o yaml cannot be watched; use -o json -w (one object per line)")
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			set := ""
			if len(args) == 1 {
				set = args[0]
			}
			if watch {
				return a.watchGet(cmd.Context(), c, set, output)
			}
			if set != "" {
				status, st, err := c.Status(cmd.Context(), set)
				if err != nil {
					return err
				}
				if err := a.printReplicas(status, st, output); err != nil {
					return err
				}
				a.noteDaemon(output)
				return nil
			}
			rows, err := a.setRows(cmd.Context(), c)
			if err != nil {
				return err
			}
			if err := a.printSets(rows, output); err != nil {
				return err
			}
			a.noteDaemon(output)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide, json or yaml (default: the output setting)")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "after the table, print a row per change until Ctrl-C")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

// setRows is the status of every set in the state directory, by name.
func (a *app) setRows(ctx context.Context, c *engine.Controller) ([]setRow, error) {
	names, err := a.store().List()
	if err != nil {
		return nil, err
	}
	var rows []setRow
	for _, name := range names {
		status, st, err := c.Status(ctx, name)
		if errors.Is(err, state.ErrUnknownSet) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, newSetRow(status, st))
	}
	return rows, nil
}

// noteDaemon adds, under a table, whether a daemon runs (on stderr, with the
// other notes); structured output leaves it out (status -o json has it).
func (a *app) noteDaemon(output string) {
	if output == "json" || output == "yaml" {
		return
	}
	fmt.Fprintf(a.stderr, "note: %s\n", a.daemon().note())
}

type setRow struct {
	plan.Status
	Created time.Time `json:"created"`
	// Image is the image reference of the update revision, as written.
	Image string `json:"image,omitempty"`
	// Deleted marks, in get -o json -w, a set that was deleted.
	Deleted bool `json:"deleted,omitempty"`
}

func newSetRow(s plan.Status, st state.State) setRow {
	return setRow{Status: s, Created: st.Created, Image: st.Spec.Template.Image}
}

// setHeader and setCells are the columns of the sets table.
func setHeader(output string) []string {
	if output == "wide" {
		return []string{"NAME", "READY", "AGE", "CURRENT", "UPDATED", "CURRENT REVISION", "UPDATE REVISION", "IMAGE"}
	}
	return []string{"NAME", "READY", "AGE"}
}

func setCells(r setRow, output string, now time.Time) []string {
	ready := fmt.Sprintf("%d/%d", r.ReadyReplicas, r.Replicas)
	if r.Deleting != nil {
		ready += " (deleting)"
	}
	if r.Paused {
		ready += " (paused)"
	}
	cells := []string{r.Name, ready, age(r.Created, now)}
	if output == "wide" {
		cells = append(cells, strconv.Itoa(r.CurrentReplicas), strconv.Itoa(r.UpdatedReplicas),
			orDefault(r.CurrentRevision, "-"), orDefault(r.UpdateRevision, "-"), orDefault(r.Image, "-"))
	}
	return cells
}

func (a *app) printSets(rows []setRow, output string) error {
	if output == "json" || output == "yaml" {
		if rows == nil {
			rows = []setRow{}
		}
		return present.PrintStructured(a.stdout, output, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.stderr, "No sets found in %s.\n", a.store().Dir)
		return nil
	}
	now := time.Now()
	w := table(a.stdout)
	printCells(w, setHeader(output))
	for _, r := range rows {
		printCells(w, setCells(r, output, now))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Deleting != nil {
			fmt.Fprintf(a.stderr, "note: %s\n", present.DeletingNote(r.Name, r.Deleting))
		}
		if n := len(r.Conflicts); n > 0 {
			fmt.Fprintf(a.stderr, "%s: %d conflicts (see ostset describe %s)\n", r.Name, n, r.Name)
		}
	}
	return nil
}

func (a *app) printReplicas(s plan.Status, st state.State, output string) error {
	if output == "json" || output == "yaml" {
		return present.PrintStructured(a.stdout, output, s.Containers)
	}
	now := time.Now()
	rows := replicaRows(s, st, now)
	if len(rows) == 0 {
		fmt.Fprintf(a.stderr, "No replicas found: %s has replicas: 0.\n", s.Name)
	}
	w := table(a.stdout)
	if len(rows) > 0 {
		printCells(w, replicaHeader(output))
	}
	for _, r := range rows {
		printCells(w, replicaCells(r, output, now))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if output == "wide" {
		present.PrintInitFailures(a.stdout, "", s.Initializing)
	} else {
		printFailures(a.stdout, "", s.Pending)
	}
	present.PrintConflicts(a.stderr, "", s.ConflictDetails)
	present.PrintRemovals(a.stderr, "note: ", s.Containers)
	if s.Deleting != nil {
		fmt.Fprintf(a.stderr, "note: %s\n", present.DeletingNote(s.Name, s.Deleting))
	}
	return nil
}

// replicaRow is one line of a set's replicas: a replica container, an
// ordinal whose init containers run, or a desired ordinal without either.
type replicaRow struct {
	name, ready, state, health, revision, id, reason string
	ports, image                                     string
	ordinal                                          int
	created                                          time.Time
}

// replicaHeader and replicaCells are the columns of a set's replicas.
func replicaHeader(output string) []string {
	if output == "wide" {
		return []string{"NAME", "ORDINAL", "READY", "STATE", "HEALTH", "REVISION", "IMAGE", "PORTS", "AGE", "CONTAINER ID", "REASON"}
	}
	return []string{"NAME", "READY", "STATE", "HEALTH", "AGE"}
}

func replicaCells(r replicaRow, output string, now time.Time) []string {
	if output == "wide" {
		return []string{r.name, strconv.Itoa(r.ordinal), r.ready, r.state, r.health, r.revision, r.image, r.ports, r.age(now), r.id, r.reason}
	}
	return []string{r.name, r.ready, r.state, r.health, r.age(now)}
}

func printCells(w io.Writer, cells []string) {
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

// age is the row's age; "-" for an ordinal without a container.
func (r replicaRow) age(now time.Time) string {
	if r.created.IsZero() && r.id == "-" {
		return "-"
	}
	return age(r.created, now)
}

// printFailures says why each pending replica that cannot start cannot.
func printFailures(w io.Writer, indent string, pending []plan.PendingReplica) {
	for _, p := range pending {
		if p.Failed {
			fmt.Fprintf(w, "%s%s: %s\n", indent, p.Name, p.Reason)
		}
	}
}

// replicaRows lists every desired ordinal and every replica, by ordinal, with
// the image and host ports of the revision each runs (or would run). A
// replica whose recreation the crash-loop back-off holds back is in state
// CrashLoopBackOff, as Kubernetes calls it, with the next try (from now) in
// its reason.
func replicaRows(s plan.Status, st state.State, now time.Time) []replicaRow {
	var rows []replicaRow
	for _, c := range s.Containers {
		ready := "0/1"
		if c.Ready {
			ready = "1/1"
		}
		state, reason := c.State, orDefault(c.Reason, "-")
		if c.RemovalPending != nil {
			state += " (removal pending)"
		}
		if c.CrashLoop != nil {
			state = "CrashLoopBackOff"
			reason = strings.TrimPrefix(c.Reason+"; ", "; ") + present.CrashLoopNote(c.CrashLoop, now)
		}
		rows = append(rows, replicaRow{name: c.Name, ordinal: c.Ordinal, ready: ready, state: state,
			health: orDefault(c.Health, "-"), revision: c.Revision, created: c.Created, id: c.ID, reason: reason})
	}
	for _, i := range s.Initializing {
		rows = append(rows, replicaRow{name: i.Replica, ordinal: i.Ordinal, ready: "0/1", state: initState(i),
			health: "-", revision: i.Revision, created: i.Created, id: orDefault(i.ID, "-"), reason: initReason(i)})
	}
	for _, p := range s.Pending { // as kubectl lists a Pending pod
		state := "pending"
		if p.Failed {
			state = "failed"
		}
		rows = append(rows, replicaRow{name: p.Name, ordinal: p.Ordinal, ready: "0/1", state: state,
			health: "-", revision: "-", id: "-", reason: p.Reason})
	}
	slices.SortStableFunc(rows, func(a, b replicaRow) int { return a.ordinal - b.ordinal })
	for i := range rows {
		t := revisionTemplate(st, rows[i].revision)
		rows[i].image = orDefault(t.Image, "-")
		rows[i].ports = orDefault(hostPorts(t.Ports, rows[i].ordinal), "-")
	}
	return rows
}

// completeSets offers the names of known sets.
func (a *app) completeSets(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := a.store().List()
	return names, cobra.ShellCompDirectiveNoFileComp
}
