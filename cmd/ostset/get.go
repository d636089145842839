package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
)

func newGetCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "get [SET]",
		Short: "List sets, or one set's replicas",
		Args:  maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			output = a.format(cmd, output, "wide", "json", "yaml")
			if err := checkFormat(output, "", "wide", "json", "yaml"); err != nil {
				return err
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				status, _, err := c.Status(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := a.printReplicas(status, output); err != nil {
					return err
				}
				a.noteDaemon(output)
				return nil
			}
			names, err := a.store().List()
			if err != nil {
				return err
			}
			var rows []setRow
			for _, name := range names {
				status, st, err := c.Status(cmd.Context(), name)
				if err != nil {
					return err
				}
				rows = append(rows, setRow{Status: status, Created: st.Created})
			}
			if err := a.printSets(rows, output); err != nil {
				return err
			}
			a.noteDaemon(output)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide, json or yaml (default: the output setting)")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
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
	engine.Status
	Created time.Time `json:"created"`
}

func (a *app) printSets(rows []setRow, output string) error {
	if output == "json" || output == "yaml" {
		if rows == nil {
			rows = []setRow{}
		}
		return printStructured(a.stdout, output, rows)
	}
	now := time.Now()
	w := table(a.stdout)
	if output == "wide" {
		fmt.Fprintln(w, "NAME\tREADY\tAGE\tCURRENT\tUPDATED\tCURRENT REVISION\tUPDATE REVISION")
	} else {
		fmt.Fprintln(w, "NAME\tREADY\tAGE")
	}
	for _, r := range rows {
		ready := fmt.Sprintf("%d/%d", r.ReadyReplicas, r.Replicas)
		if r.Deleting != nil {
			ready += " (deleting)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s", r.Name, ready, age(r.Created, now))
		if output == "wide" {
			fmt.Fprintf(w, "\t%d\t%d\t%s\t%s", r.CurrentReplicas, r.UpdatedReplicas, r.CurrentRevision, r.UpdateRevision)
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Deleting != nil {
			fmt.Fprintf(a.stderr, "note: %s\n", deletingNote(r.Name, r.Deleting))
		}
		if n := len(r.Conflicts); n > 0 {
			fmt.Fprintf(a.stderr, "%s: %d conflicts (see ostset describe %s)\n", r.Name, n, r.Name)
		}
	}
	return nil
}

func (a *app) printReplicas(s engine.Status, output string) error {
	if output == "json" || output == "yaml" {
		return printStructured(a.stdout, output, s.Containers)
	}
	now := time.Now()
	w := table(a.stdout)
	if output == "wide" {
		fmt.Fprintln(w, "NAME\tORDINAL\tREADY\tSTATE\tHEALTH\tREVISION\tAGE\tCONTAINER ID\tREASON")
	} else {
		fmt.Fprintln(w, "NAME\tREADY\tSTATE\tHEALTH\tAGE")
	}
	for _, r := range replicaRows(s, now) {
		if output == "wide" {
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.ordinal, r.ready, r.state, r.health, r.revision, r.age(now), r.id, r.reason)
		} else {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.name, r.ready, r.state, r.health, r.age(now))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if output == "wide" {
		printInitFailures(a.stdout, "", s.Initializing)
	} else {
		printFailures(a.stdout, "", s.Pending)
	}
	printConflicts(a.stderr, "", s.ConflictDetails)
	printRemovals(a.stderr, "note: ", s.Containers)
	if s.Deleting != nil {
		fmt.Fprintf(a.stderr, "note: %s\n", deletingNote(s.Name, s.Deleting))
	}
	return nil
}

// replicaRow is one line of a set's replicas: a replica container, an
// ordinal whose init containers run, or a desired ordinal without either.
type replicaRow struct {
	name, ready, state, health, revision, id, reason string
	ordinal                                          int
	created                                          time.Time
}

// age is the row's age; "-" for an ordinal without a container.
func (r replicaRow) age(now time.Time) string {
	if r.created.IsZero() && r.id == "-" {
		return "-"
	}
	return age(r.created, now)
}

// printFailures says why each pending replica that cannot start cannot.
func printFailures(w io.Writer, indent string, pending []engine.PendingReplica) {
	for _, p := range pending {
		if p.Failed {
			fmt.Fprintf(w, "%s%s: %s\n", indent, p.Name, p.Reason)
		}
	}
}

// replicaRows lists the replicas and the initializing ordinals, by ordinal.
// A replica whose recreation the crash-loop back-off holds back is in state
// CrashLoopBackOff, as Kubernetes calls it, with the next try in its reason.
func replicaRows(s engine.Status, now time.Time) []replicaRow {
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
			reason = strings.TrimPrefix(c.Reason+"; ", "; ") + crashLoopNote(c.CrashLoop, now)
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
	return rows
}

// crashLoopNote says when a replica in crash-loop back-off is recreated.
func crashLoopNote(c *engine.CrashLoopStatus, now time.Time) string {
	return fmt.Sprintf("next try at %s (in %s)", c.NextTry.Local().Format(time.TimeOnly), max(c.NextTry.Sub(now), 0).Round(time.Second))
}

// completeSets offers the names of known sets.
func (a *app) completeSets(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := a.store().List()
	return names, cobra.ShellCompDirectiveNoFileComp
}
