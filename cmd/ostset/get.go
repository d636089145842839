package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
	"github.com/ostset/ostset/internal/present"
)

func newGetCmd(a *app) *cobra.Command {
	var output, project string
	var watch bool
	cmd := &cobra.Command{
		Use:   "get [SET] | get -p PROJECT",
		Short: "List sets, or one set's replicas",
		Long: `List sets, or one set's replicas: every desired ordinal is a row, also one
that does not exist yet or cannot start, with its reason.

With -w, print the table, then a row each time a set (or, with SET, a
replica) changes, until Ctrl-C. Changes come from Docker's events and the
state directory, with or without a daemon. With -o json -w, one JSON
object per line and per change.

With -p PROJECT, list only the sets of that compose project (ostset ls lists
the projects).`,
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
			if project != "" && (set != "" || watch) {
				return invalidf("get -p %s lists a project's sets: give no SET, and no -w", project)
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
			rows, err := a.setRows(cmd.Context(), c, project)
			if err != nil {
				return err
			}
			if project != "" && len(rows) == 0 {
				return invalidf("get -p %s: no stored set belongs to compose project %s (ostset ls lists the projects)", project, project)
			}
			if err := a.printSets(rows, output); err != nil {
				return err
			}
			a.noteDaemon(output)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide, json, yaml, name or jsonpath=TEMPLATE (default: the output setting)")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "after the table, print a row per change until Ctrl-C")
	cmd.Flags().StringVarP(&project, "project-name", "p", "", "only the sets of this compose project")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

// setRows is the status of every set in the state directory (of the compose
// project, when one is given), by name.
func (a *app) setRows(ctx context.Context, c *engine.Controller, project string) ([]live.SetRow, error) {
	names, err := a.store().List()
	if err != nil {
		return nil, err
	}
	var rows []live.SetRow
	for _, name := range names {
		status, st, err := c.Status(ctx, name)
		if errors.Is(err, state.ErrUnknownSet) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		if project != "" && st.Spec.Template.Labels[config.LabelComposeProject] != project {
			continue
		}
		rows = append(rows, live.NewSetRow(status, st))
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

func (a *app) printSets(rows []live.SetRow, output string) error {
	if output == "json" || output == "yaml" {
		if rows == nil {
			rows = []live.SetRow{}
		}
		return present.PrintStructured(a.stdout, output, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.stderr, "No sets found in %s.\n", a.store().Dir)
		return nil
	}
	now := time.Now()
	w := table(a.stdout)
	printCells(w, live.SetHeader(output))
	for _, r := range rows {
		printCells(w, live.SetCells(r, output, now))
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
		// Every desired ordinal, as the table lists them: one without a
		// container (pending, failed, its init containers running) too.
		return present.PrintStructured(a.stdout, output, live.ReplicaObjects(s))
	}
	now := time.Now()
	rows := live.ReplicaRows(s, st, now)
	if len(rows) == 0 {
		fmt.Fprintf(a.stderr, "No replicas found: %s has replicas: 0.\n", s.Name)
	}
	w := table(a.stdout)
	if len(rows) > 0 {
		printCells(w, live.ReplicaHeader(output))
	}
	for _, r := range rows {
		printCells(w, live.ReplicaCells(r, output, now))
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

func printCells(w io.Writer, cells []string) {
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

// printFailures says why each pending replica that cannot start cannot, as
// of when the engine said so, and when it is tried again.
func printFailures(w io.Writer, indent string, pending []plan.PendingReplica) {
	now := time.Now()
	for _, p := range pending {
		if p.Failed {
			fmt.Fprintf(w, "%s%s: %s%s\n", indent, p.Name, p.Reason, present.FailureWhen(p.FailedAt, p.RetryAt, now))
		}
	}
}

// completeSets offers the names of known sets.
func (a *app) completeSets(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, _ := a.store().List()
	return names, cobra.ShellCompDirectiveNoFileComp
}
