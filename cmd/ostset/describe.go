package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
	"github.com/ostset/ostset/internal/present"
)

// describeEvents is how many recent events describe shows.
const describeEvents = 15

func newDescribeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "describe SET",
		Short: "Show a set's spec, status, conditions, revisions, replicas and recent events",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.controller()
			if err != nil {
				return err
			}
			s, st, err := c.Status(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			events, _, err := a.store().Events(args[0], 0)
			if err != nil {
				return err
			}
			return a.describe(st, s, events, a.daemon())
		},
	}
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func (a *app) describe(st state.State, s plan.Status, events []state.Event, d daemonInfo) error {
	now := time.Now()
	w := a.stdout
	fmt.Fprintf(w, "Name:            %s\n", s.Name)
	if st.Spec.Source != "" {
		fmt.Fprintf(w, "Source:          %s\n", st.Spec.Source)
	}
	fmt.Fprintf(w, "Created:         %s (%s ago)\n", st.Created.Local().Format(time.DateTime), present.Age(st.Created, now))
	fmt.Fprintf(w, "Replicas:        %d desired | %d ready | %d available | %d current | %d updated\n",
		s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.CurrentReplicas, s.UpdatedReplicas)
	fmt.Fprintf(w, "Revisions:       current %s, update %s\n", orDefault(s.CurrentRevision, "none yet"), s.UpdateRevision)
	fmt.Fprintf(w, "Generation:      %d (observed %d)\n", st.Generation, s.ObservedGeneration)
	if st.Paused {
		fmt.Fprintln(w, "Paused:          true")
	}
	if st.Stopped {
		fmt.Fprintf(w, "Stopped:         true (ostset start %s starts it)\n", st.Spec.Name)
	}
	if s.Deleting != nil {
		fmt.Fprintf(w, "Deleting:        %s\n", present.DeletingNote(s.Name, s.Deleting))
	}
	present.PrintAdopted(w, "Adopted from:    ", st.AdoptedOwners)
	fmt.Fprintf(w, "Daemon:          %s\n", d.note())

	t := table(w)
	if len(s.Conditions) > 0 {
		fmt.Fprintln(w, "Conditions:")
		fmt.Fprintln(t, "  TYPE\tSTATUS\tREASON\tMESSAGE")
		for _, c := range s.Conditions {
			fmt.Fprintf(t, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		_ = t.Flush()
	}

	fmt.Fprintln(w, "Replicas:")
	t = table(w)
	fmt.Fprintln(t, "  NAME\tSTATE\tHEALTH\tREVISION\tAGE")
	for _, r := range live.ReplicaRows(s, st, now) {
		fmt.Fprintf(t, "  %s\t%s\t%s\t%s\t%s\n", r.Name, r.State, r.Health, r.Revision, r.Age(now))
	}
	_ = t.Flush()
	printFailures(w, "  ", s.Pending)
	if len(s.Initializing) > 0 {
		fmt.Fprintln(w, "Init containers:")
		present.PrintInits(w, "  ", s.Initializing)
	}
	present.PrintNotReady(w, s.Containers, now)
	present.PrintRemovals(w, "  ", s.Containers)
	present.PrintConflicts(w, "  ", s.ConflictDetails)
	for _, wait := range s.Waiting {
		fmt.Fprintf(w, "  waiting: %s\n", wait)
	}

	t = table(w)
	if len(st.History()) > 0 {
		fmt.Fprintln(w, "Revision history:")
	}
	for _, r := range st.History() {
		fmt.Fprintf(t, "  %d\t%s\t%s\n", r.Number, r.Name, r.ChangeCause)
	}
	_ = t.Flush()

	fmt.Fprintln(w, "Spec:")
	if err := present.PrintSpec(w, "  ", st.Spec); err != nil {
		return err
	}

	fmt.Fprintln(w, "Events:")
	if len(events) == 0 {
		fmt.Fprintln(w, "  <none>")
	}
	for _, e := range events[max(0, len(events)-describeEvents):] {
		fmt.Fprintf(w, "  %s ago\t%s\n", present.Age(e.Time, now), e.Message)
	}
	return nil
}
