package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

func newScaleCmd(a *app) *cobra.Command {
	var replicas int
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "scale SET --replicas N",
		Short: "Change a set's replica count (ordered per its pod management policy)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("replicas") {
				return invalidf("scale: --replicas is required")
			}
			if replicas < 0 {
				return invalidf("scale: --replicas %d: must be >= 0", replicas)
			}
			name := args[0]
			old := 0
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			what := fmt.Sprintf("scale %s --replicas %d", name, replicas)
			if err := a.preflightChange(ctx, name, what, func(st *state.State) error {
				st.Spec.Replicas = &replicas
				return nil
			}); err != nil {
				return err
			}
			err := a.change(ctx, name, func(st *state.State) (string, error) {
				old = st.Spec.DesiredReplicas()
				n := replicas
				st.Spec.Replicas = &n
				st.Overrides.Replicas = &n
				if err := st.Spec.Validate(); err != nil {
					return "", invalid(err)
				}
				if old != replicas {
					st.Generation++
				}
				return fmt.Sprintf("scaled from %d to %s", old, plural(replicas, "replica")), nil
			})
			return w.then(cmd.Context(), a, err, name)
		},
	}
	cmd.Flags().IntVar(&replicas, "replicas", 0, "the new replica count")
	w.register(cmd)
	return cmd
}

// preflightChange checks the set as a command's change would leave it
// against the engine's host (see app.preflight): the host ports of the
// ordinals a scale-up adds, the template a rollback brings back. change is
// tried on a copy of the stored state; if it fails, the command itself
// reports why.
func (a *app) preflightChange(ctx context.Context, name, what string, change func(st *state.State) error) error {
	st, err := a.store().Load(name)
	if errors.Is(err, state.ErrUnknownSet) {
		return nil // the command reports it as it does without this check
	}
	if err != nil {
		return err
	}
	if change(&st) != nil {
		return nil
	}
	if err := a.preflight(ctx, []config.Set{st.Spec}); err != nil {
		// The stored set keeps the line of its document, not of its fields.
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
