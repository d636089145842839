package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

func newRolloutCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Manage a set's rollouts: status, history, undo, restart, partition, pause, resume",
		Args:  exactArgs(0),
	}
	cmd.AddCommand(newRolloutStatusCmd(a), newRolloutHistoryCmd(a), newRolloutUndoCmd(a), newRolloutRestartCmd(a),
		newRolloutPartitionCmd(a), newRolloutPauseCmd(a, true), newRolloutPauseCmd(a, false))
	return cmd
}

// change applies fn to a set's stored state under its lock, records why in the
// set's event log, and prints what it says. A set that is being deleted is
// refused: a change would be lost when the delete finishes.
func (a *app) change(ctx context.Context, name string, fn func(st *state.State) (string, error)) error {
	var msg string
	a.mark(name)
	_, err := a.store().Update(ctx, name, func(st *state.State, exists bool) error {
		if !exists {
			return a.store().Unknown(name)
		}
		if st.Deleting != nil {
			return invalidf("set %s is being deleted (an 'ostset down' did not finish): run 'ostset down %s' to finish the delete, or 'ostset up -f FILE' to cancel it", name, name)
		}
		if err := st.RefuseStopped(); err != nil {
			return invalid(err)
		}
		var err error
		if msg, err = fn(st); err == nil {
			// A new progress window, also for --wait=false with a daemon
			// running (see engine.State.ReopenProgress).
			st.ReopenProgress()
		}
		return err
	})
	if err != nil {
		return err
	}
	_ = a.store().AppendEvent(state.Event{Time: time.Now(), Set: name, Message: msg})
	fmt.Fprintf(a.stdout, "%s: %s\n", name, msg)
	return nil
}

func newRolloutStatusCmd(a *app) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "status SET",
		Short: "Wait for the set's rollout, printing its progress; exit 0 once complete",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.controller()
			if err != nil {
				return err
			}
			c.Report = nil
			last := ""
			c.OnPlan = func(st state.State, pl plan.Plan) {
				if line := present.RolloutLine(st.Spec, st.Paused, pl); line != last {
					fmt.Fprintln(a.stdout, line)
					last = line
				}
			}
			if err := a.converge(cmd.Context(), c, timeout, []string{args[0]}, false); err != nil {
				return err
			}
			if s, short := pausedStatus(cmd.Context(), c, args[0]); short {
				// kubectl's rollout status fails on a paused rollout too: a
				// script waiting for the update must not carry on as if done.
				return errors.New(present.PausedLine(args[0], s))
			}
			return nil
		},
	}
	timeoutFlag(cmd, &timeout)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func newRolloutHistoryCmd(a *app) *cobra.Command {
	var revision int
	var output string
	cmd := &cobra.Command{
		Use:   "history SET",
		Short: "List a set's revisions, or show one with --revision",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			st, err := a.store().Load(args[0])
			if err != nil {
				return err
			}
			if revision > 0 {
				for _, r := range st.Revisions {
					if r.Number == revision {
						return present.PrintStructured(a.stdout, orDefault(output, "yaml"), r)
					}
				}
				return invalidf("set %s has no revision %d", args[0], revision)
			}
			if output != "" {
				return present.PrintStructured(a.stdout, output, st.History())
			}
			w := table(a.stdout)
			fmt.Fprintln(w, "REVISION\tNAME\tCREATED\tCHANGE-CAUSE\tCHANGES")
			history := st.History()
			for i, r := range history {
				changes := "-"
				if i > 0 {
					changes = orDefault(strings.Join(present.RevisionChanges(history[i-1].Spec, r.Spec), "; "), "-")
				}
				mark := ""
				switch r.Name {
				case st.UpdateRevision:
					mark = " (update)"
				case st.CurrentRevision:
					mark = " (current)"
				}
				fmt.Fprintf(w, "%d\t%s%s\t%s\t%s\t%s\n", r.Number, r.Name, mark, r.Created.Local().Format(time.DateTime), orDefault(r.ChangeCause, "-"), changes)
			}
			return w.Flush()
		},
	}
	cmd.Flags().IntVar(&revision, "revision", 0, "show this revision's template")
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func newRolloutUndoCmd(a *app) *cobra.Command {
	var to int
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "undo SET [--to-revision N]",
		Short: "Roll back to the previous (or the given) revision",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			if err := a.preflightChange(ctx, args[0], "rollout undo "+strings.Join(args, " "), func(st *state.State) error {
				_, err := st.Undo(to, "", time.Now())
				return err
			}); err != nil {
				return err
			}
			err := a.change(ctx, args[0], func(st *state.State) (string, error) {
				r, err := st.Undo(to, "ostset rollout undo "+strings.Join(args, " "), time.Now())
				if err != nil {
					return "", invalid(err)
				}
				a.madeRevision(args[0], r.Name)
				h := st.History()
				return fmt.Sprintf("rolling back to %s (now revision %d)", r.Name, h[len(h)-1].Number), nil
			})
			return w.then(cmd.Context(), a, err, args...)
		},
	}
	cmd.Flags().IntVar(&to, "to-revision", 0, "the revision number to roll back to (default: the previous one)")
	w.register(cmd)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func newRolloutRestartCmd(a *app) *cobra.Command {
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "restart SET",
		Short: "Replace every replica, in rollout order, without changing the template",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			err := a.change(ctx, args[0], func(st *state.State) (string, error) {
				r, err := st.Restart("ostset rollout restart", time.Now())
				if err != nil {
					return "", err
				}
				a.madeRevision(args[0], r.Name)
				return "restarting: new revision " + r.Name, nil
			})
			return w.then(cmd.Context(), a, err, args...)
		},
	}
	w.register(cmd)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func newRolloutPartitionCmd(a *app) *cobra.Command {
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "partition SET N",
		Short: "Set updateStrategy.rollingUpdate.partition: ordinals >= N are updated",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 0 {
				return invalidf("partition %q: want a whole number >= 0", args[1])
			}
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			err = a.change(ctx, args[0], func(st *state.State) (string, error) {
				if st.Spec.UpdateStrategy.Type != config.RollingUpdate {
					return "", invalidf("set %s uses %s; a partition applies to RollingUpdate", args[0], st.Spec.UpdateStrategy.Type)
				}
				old := st.Spec.UpdateStrategy.RollingUpdate.Partition
				st.Spec.UpdateStrategy.RollingUpdate.Partition = n
				st.Overrides.Partition = &n
				if old != n {
					st.Generation++
				}
				return fmt.Sprintf("partition %d -> %d", old, n), nil
			})
			return w.then(cmd.Context(), a, err, args[0])
		},
	}
	w.register(cmd)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

// newRolloutPauseCmd makes `rollout pause` (pause=true) or `rollout resume`,
// which waits for the resumed rollout as the other changes do.
func newRolloutPauseCmd(a *app, pause bool) *cobra.Command {
	use, short, msg := "resume SET", "Resume replacing replicas and wait for the rollout", "rollout resumed"
	if pause {
		use, short, msg = "pause SET", "Stop replacing replicas for updates until resumed (scaling goes on)", "rollout paused"
	}
	var w waitFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			err := a.change(ctx, args[0], func(st *state.State) (string, error) {
				if st.Paused != pause { // the progress deadline counts from the resume (see change)
					st.Paused = pause
					st.Generation++
				}
				return msg, nil
			})
			if pause { // nothing to carry out: replicas are left as they are
				return err
			}
			return w.then(cmd.Context(), a, err, args[0])
		},
	}
	if !pause {
		w.register(cmd)
	}
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
