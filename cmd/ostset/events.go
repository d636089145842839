package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine/state"
)

func newEventsCmd(a *app) *cobra.Command {
	var follow bool
	var output string
	cmd := &cobra.Command{
		Use:   "events SET [-f]",
		Short: "Show what the controller did and waited for, for one set",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(output, "", "json"); err != nil {
				return err
			}
			store := a.store()
			if _, err := store.Load(args[0]); err != nil {
				return err
			}
			var seen int64 // the number of the last event printed: each is printed once across trims
			for {
				events, last, err := store.Events(args[0], seen)
				if err != nil {
					return err
				}
				seen = last
				for _, e := range events {
					a.printLogged(e, output)
				}
				if !follow {
					return nil
				}
				if err := sleepCtx(cmd.Context(), 300*time.Millisecond); err != nil {
					return nil // interrupted: following ends
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new events")
	cmd.Flags().StringVarP(&output, "output", "o", "", "json: one event object per line")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func (a *app) printLogged(e state.Event, output string) {
	if output == "json" {
		_ = printStructuredLine(a.stdout, e)
		return
	}
	fmt.Fprintf(a.stdout, "%s  %s\n", e.Time.Local().Format("2006-01-02 15:04:05.000"), e.Message)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
