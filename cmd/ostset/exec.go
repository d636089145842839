package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/internal/termsize"
)

func newExecCmd(a *app) *cobra.Command {
	var stdin, tty bool
	cmd := &cobra.Command{
		Use:   "exec SET[-ORDINAL] [-i] [-t] -- CMD [ARG...]",
		Short: "Run a command in a replica",
		Long: `Run a command in a replica, as docker exec does. A bare SET means its lowest
ordinal that has a running container, as kubectl exec sts/web picks a pod.
-i keeps standard input open; -t gives the command a terminal. ostset exits
with the command's exit code.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 || len(args) < 2 {
				return invalidf("usage: ostset exec SET[-ORDINAL] [-i] [-t] -- CMD [ARG...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			set, name, err := a.execTarget(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.exec(cmd.Context(), set, name, args[1:], stdin, tty)
		},
	}
	cmd.Flags().BoolVarP(&stdin, "stdin", "i", false, "keep standard input open")
	cmd.Flags().BoolVarP(&tty, "tty", "t", false, "give the command a terminal")
	cmd.ValidArgsFunction = a.completeSetsAndReplicas
	return cmd
}

// execTarget is the replica ARG names: SET-ORDINAL, or a set's lowest
// running ordinal.
func (a *app) execTarget(ctx context.Context, arg string) (set, name string, err error) {
	t, err := a.resolveLogTarget(arg)
	if err != nil {
		return "", "", err
	}
	c, err := a.controller()
	if err != nil {
		return "", "", err
	}
	if !t.whole {
		r, err := c.Replica(ctx, t.set, t.ordinal)
		return t.set, r.Name, err
	}
	s, _, err := c.Status(ctx, t.set)
	if err != nil {
		return "", "", err
	}
	for _, r := range s.Containers { // by ordinal
		if r.State == plan.StateRunning {
			return t.set, r.Name, nil
		}
	}
	return "", "", fmt.Errorf("set %s has no running replica to exec in (see ostset get %s)", t.set, t.set)
}

// exec runs cmd in the replica name; with tty the local terminal is put in
// raw mode for the command's time and follows its size.
func (a *app) exec(ctx context.Context, set, name string, cmdline []string, stdin, tty bool) error {
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	o := docker.ExecOptions{Cmd: cmdline, Stdout: a.stdout, Stderr: a.stderr}
	if stdin {
		o.Stdin = os.Stdin
	}
	fd := int(os.Stdin.Fd())
	if tty {
		if !term.IsTerminal(fd) {
			return invalidf("-t: standard input is not a terminal")
		}
		o.TTY = true
		if w, h, err := term.GetSize(fd); err == nil {
			o.Width, o.Height = uint(w), uint(h)
		}
		old, err := term.MakeRaw(fd)
		if err != nil {
			return err
		}
		defer func() { _ = term.Restore(fd, old) }()
		resized, stop := termsize.Watch(fd)
		defer stop()
		o.Resized = resized
	}
	code, err := rt.Exec(ctx, set, name, o)
	if err != nil {
		return err
	}
	if code != 0 {
		return &exitError{code: code, err: fmt.Errorf("command terminated with exit code %d", code)}
	}
	return nil
}
