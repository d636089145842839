package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/internal/present"
)

func newStatusCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status SET",
		Short: "Print a set's status (replica counts, revisions, containers)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			output = a.format(cmd, output, "json", "yaml")
			if err := checkFormat(output, "", "json", "yaml"); err != nil {
				return err
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			s, _, err := c.Status(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if output != "" {
				return present.PrintStructured(a.stdout, output, struct {
					plan.Status
					Daemon daemonInfo `json:"daemon"`
				}{s, a.daemon()})
			}
			fmt.Fprintf(a.stdout, "%s: %d desired, %d ready, %d available, %d current, %d updated\n",
				s.Name, s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.CurrentReplicas, s.UpdatedReplicas)
			fmt.Fprintf(a.stdout, "revisions: current %s, update %s\n", s.CurrentRevision, s.UpdateRevision)
			if len(s.Waiting) > 0 {
				fmt.Fprintf(a.stdout, "waiting: %s\n", strings.Join(s.Waiting, "; "))
			}
			if s.Deleting != nil {
				fmt.Fprintf(a.stdout, "deleting: %s\n", present.DeletingNote(s.Name, s.Deleting))
			}
			printFailures(a.stdout, "", s.Pending)
			present.PrintConflicts(a.stdout, "", s.ConflictDetails)
			present.PrintRemovals(a.stdout, "removing: ", s.Containers)
			fmt.Fprintln(a.stdout, a.daemon().note())
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}
