package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/docker"
)

func newReconcileCmd(a *app) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "reconcile [SET]",
		Short: "Run the controller until the sets (all, or SET) converge",
		Args:  maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names := args
			if len(names) == 0 {
				var err error
				if names, err = a.store().List(); err != nil {
					return err
				}
			}
			return a.waitAll(cmd.Context(), timeout, names)
		},
	}
	timeoutFlag(cmd, &timeout)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ostset version",
		Args:  exactArgs(0),
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(a.stdout, "ostset", version)
			fmt.Fprintln(a.stdout, docker.About(cmd.Context(), a.dockerContext))
		},
	}
}
