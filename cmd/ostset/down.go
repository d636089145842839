package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/compose"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
)

func newDownCmd(a *app) *cobra.Command {
	var cascade string
	var removeVolumes bool
	var files []string
	var cf composeFlags
	cmd := &cobra.Command{
		Use:   "down SET | down -p PROJECT | down -f COMPOSE_FILE",
		Short: "Delete a set, or the sets of a compose project: replicas in reverse ordinal order; volumes per the retention policy",
		Args: func(cmd *cobra.Command, args []string) error {
			if cf.project != "" || len(files) > 0 {
				return exactArgs(0)(cmd, args)
			}
			return exactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cascade != "background" && cascade != "orphan" {
				return invalidf("--cascade %q: want background or orphan", cascade)
			}
			if cf.project != "" || len(files) > 0 {
				if cascade == "orphan" {
					return invalidf("--cascade orphan takes one SET")
				}
				project := cf.project
				if project == "" {
					p, err := compose.Load(cmd.Context(), cf.options(files))
					if err != nil {
						return invalid(err)
					}
					project = p.Name
				}
				return a.downProject(cmd.Context(), project, removeVolumes)
			}
			name := args[0]
			if cascade == "orphan" {
				return a.orphan(cmd.Context(), name)
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			err = c.Delete(cmd.Context(), name, removeVolumes)
			if errors.Is(err, state.ErrUnknownSet) && removeVolumes {
				return a.removeKeptVolumes(cmd.Context(), c, name)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: deleted\n", name)
			return nil
		},
	}
	progressFlag(cmd)
	cmd.Flags().StringVar(&cascade, "cascade", "background", "orphan: forget the set but leave its containers running")
	cmd.Flags().BoolVar(&removeVolumes, "volumes", false, "also remove the set's per-ordinal volumes")
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "compose file: delete the sets of its project")
	cf.register(cmd)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

// orphan forgets a set and leaves its containers and volumes as they are.
func (a *app) orphan(ctx context.Context, name string) error {
	store := a.store()
	unlock, err := store.Lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := store.Load(name); err != nil {
		return err
	}
	if err := errors.Join(store.Delete(name), store.DeleteEvents(name)); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: deleted; its containers and volumes are left as they are\n", name)
	return nil
}

// removeKeptVolumes removes what down (without --volumes) left of a deleted set.
func (a *app) removeKeptVolumes(ctx context.Context, c *engine.Controller, name string) error {
	removed, err := c.RemoveKeptVolumes(ctx, name)
	for _, v := range removed {
		fmt.Fprintf(a.stdout, "%s: volume %s removed\n", name, v)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: the volumes the deleted set kept are removed\n", name)
	return nil
}
