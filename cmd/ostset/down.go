package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/volumes"
)

func newDownCmd(a *app) *cobra.Command {
	var cascade string
	var removeVolumes bool
	cmd := &cobra.Command{
		Use:   "down SET",
		Short: "Delete a set: replicas in reverse ordinal order; volumes per the retention policy",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cascade != "background" && cascade != "orphan" {
				return invalidf("--cascade %q: want background or orphan", cascade)
			}
			name := args[0]
			store := a.store()
			unlock, err := store.Lock(name)
			if err != nil {
				return err
			}
			defer unlock()
			st, err := store.Load(name)
			if err != nil {
				return err
			}
			if cascade == "orphan" {
				if err := store.Delete(name); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s: deleted; its containers and volumes are left as they are\n", name)
				return nil
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			rm := volumes.RemoveOnSetDelete(st.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted, removeVolumes)
			if err := c.DeleteSet(cmd.Context(), st.Spec, rm); err != nil {
				return err
			}
			if err := store.Delete(name); err != nil {
				return err
			}
			if err := store.DeleteEvents(name); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: deleted\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&cascade, "cascade", "background", "orphan: forget the set but leave its containers running")
	cmd.Flags().BoolVar(&removeVolumes, "volumes", false, "also remove the set's per-ordinal volumes")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}
