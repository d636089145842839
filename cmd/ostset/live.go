package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
)

func newViewCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "view [SET]",
		Short: "An interactive terminal view of the sets and their replicas",
		Long: `An interactive terminal view of the sets (or of SET's replicas), kept up to date
from Docker's events and the state directory. Keys (? lists them): enter shows
a set's replicas, + and - scale, s scales to a number, r restarts, u undoes, p
sets the partition, P pauses and R resumes the rollout, d recreates the selected
replica, x opens a shell in it, / filters, q quits. The keys that stop replicas
(r, u, -, d) ask first and run only after a y. Every action
runs the same command a user would type, and its outcome shows under the table.
The logs pane follows the selected replica's output.

It needs a terminal; without one it exits 2 (use ostset get -w).`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set := ""
			if len(args) == 1 {
				if _, err := a.store().Load(args[0]); err != nil {
					return err
				}
				set = args[0]
			} else if _, err := a.store().List(); err != nil { // a state directory it cannot read
				return err
			}
			if !isTerminal(a.stdout) || !term.IsTerminal(int(os.Stdin.Fd())) {
				return invalidf("ostset view needs a terminal; without one, use 'ostset get -w' (or 'ostset get SET -w')")
			}
			return a.runView(cmd.Context(), set)
		},
	}
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func (a *app) runView(ctx context.Context, set string) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	src, err := a.eventSource()
	if err != nil {
		return err
	}
	self, _ := os.Executable()
	v := live.View{
		Controller: c,
		Events:     src,
		Out:        a.stdout,
		Command: func(ctx context.Context, args ...string) (string, error) {
			var out bytes.Buffer
			err := Run(ctx, append(args, "--state-dir", a.store().Dir), &out, &out)
			return out.String(), err
		},
		Shell: func(replica string) *exec.Cmd {
			return exec.Command(self, "exec", "-it", replica, "--state-dir", a.store().Dir, "--", "sh", "-c", "command -v bash >/dev/null && exec bash || exec sh")
		},
	}
	if rt, ok := c.Runtime.(*docker.Runtime); ok {
		v.Stats = func(ctx context.Context, set, id string) (live.Usage, error) {
			s, err := rt.Stats(ctx, set, id)
			return live.Usage{CPU: s.CPU, System: s.System, OnlineCPUs: s.OnlineCPUs, Memory: s.Memory, At: s.At}, err
		}
		v.Logs = func(ctx context.Context, set, id string, n int) (io.ReadCloser, error) {
			return rt.Logs(ctx, set, id, true, strconv.Itoa(n))
		}
	}
	return v.Run(ctx, set)
}

// eventSource is what streams the sets' container events: Docker, or in
// tests the in-memory runtime when it can.
func (a *app) eventSource() (engine.EventSource, error) {
	if a.engineRT != nil {
		if src, ok := a.engineRT.(engine.EventSource); ok {
			return src, nil
		}
		return nil, errors.New("this runtime streams no events")
	}
	return a.runtime()
}

// watchGet is get -w: the table (or one JSON object per set or replica), then
// a row for each one that changed, until ctx ends (Ctrl-C), which is exit 0.
func (a *app) watchGet(ctx context.Context, c *engine.Controller, set, output string) error {
	src, err := a.eventSource()
	if err != nil {
		return err
	}
	return live.Watch{Controller: c, Events: src, Output: output, Out: a.stdout, Err: a.stderr,
		Printed: func() { a.noteDaemon(output) }}.Run(ctx, set)
}

// Progress modes (--progress).
const (
	progressAuto  = "auto"
	progressTTY   = "tty"
	progressPlain = "plain"
	progressJSON  = "json"
)

// progressFlag registers --progress on a command that waits for a rollout.
func progressFlag(cmd *cobra.Command) {
	cmd.Flags().String("progress", progressAuto, "how to show progress: auto (tty on a terminal, else plain), tty (a block redrawn in place), plain (a line per step) or json (an event per line)")
}

// setupProgress chooses how the command shows progress, before it runs: in
// tty mode other output, stdout's and stderr's, goes above the live block; in
// json mode every line becomes an object, so that a tool reads one event per
// line.
func (a *app) setupProgress(cmd *cobra.Command) error {
	if cmd.Flags().Lookup("progress") == nil {
		return nil
	}
	mode := a.v.GetString("progress")
	switch mode {
	case "", progressAuto:
		mode = progressPlain
		if isTerminal(a.stdout) && os.Getenv("TERM") != "dumb" {
			mode = progressTTY
		}
	case progressTTY, progressPlain, progressJSON:
	default:
		return invalidf("--progress %q: want auto, tty, plain or json", mode)
	}
	switch mode {
	case progressTTY:
		b := live.NewBlock(a.stdout, live.TerminalWidth(a.stdout))
		if sameScreen(a.stderr, a.stdout) {
			a.stderr = b.Above(a.stderr)
		}
		a.live = b
		a.stdout = b
	case progressJSON:
		j := live.NewJSONLines(a.stdout)
		a.jsonOut = j
		a.stdout = j
	}
	return nil
}

// sameScreen says whether what is written to stderr shows on the terminal
// stdout is, where the progress block is drawn.
func sameScreen(stderr, stdout io.Writer) bool {
	ef, ok := stderr.(*os.File)
	of, ok2 := stdout.(*os.File)
	if !ok || !ok2 || !isTerminal(ef) {
		return false
	}
	a, err := ef.Stat()
	b, err2 := of.Stat()
	return err == nil && err2 == nil && os.SameFile(a, b)
}

// reportFor is what a controller's Report is in the chosen mode.
func (a *app) reportFor() func(state.Event) {
	switch {
	case a.live != nil:
		return a.live.Event
	case a.jsonOut != nil:
		return a.jsonOut.Event
	}
	return a.printEvent
}
