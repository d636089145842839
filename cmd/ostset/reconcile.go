package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
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

func newDaemonCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "daemon",
		Short: "Run the controller continuously for every set, reacting to Docker events",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.controller()
			if err != nil {
				return err
			}
			release, err := a.store().HoldDaemon()
			if err != nil {
				return err
			}
			defer release()
			return c.RunAll(cmd.Context())
		},
	}
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ostset version",
		Args:  exactArgs(0),
		Run: func(*cobra.Command, []string) {
			fmt.Fprintln(a.stdout, "ostset", version)
		},
	}
}
