package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/internal/volumelist"
)

func newVolumesCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "volumes [SET]",
		Short: "List the sets' per-ordinal volumes: ordinal, size, and the replica using each",
		Long: `List the per-ordinal volumes of every set (or of SET): the claim and ordinal,
the size on disk when Docker reports it (the local driver), and the replica
that uses it, or "kept" for a volume that a scale-down or a down left for its
ordinal to come back to. The volumes a down kept of a deleted set are listed
too (found by their labels, this state directory's own), as "kept (set
deleted)"; ostset volumes SET lists those of a deleted SET.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(output, "", "json", "yaml"); err != nil {
				return err
			}
			set := ""
			if len(args) == 1 {
				set = args[0]
			}
			if _, err := a.store().List(); err != nil { // a state directory it cannot read, before Docker
				return err
			}
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			rows, err := volumelist.Rows(cmd.Context(), c, rt, set, func(s string) { fmt.Fprintf(a.stderr, "note: %s\n", s) })
			if err != nil {
				return err
			}
			return volumelist.Print(a.stdout, a.stderr, rows, output, time.Now())
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}
