// Command ostset gives Kubernetes StatefulSet semantics on plain Docker.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/verbs"
)

var version = "dev"

// Exit codes (see the contract).
const (
	exitOK       = 0
	exitFailure  = 1
	exitInvalid  = 2
	exitTimedOut = 3
	// exitInterrupted is 128 + SIGINT, as shells report a command ended by Ctrl-C.
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(report(err, os.Stderr))
}

// Run runs the ostset command line with args.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(stdout, stderr)
	args = verbs.PluginArgs(args, os.Getenv)
	if done, err := verbs.PluginMetadata(args, version, stdout); done {
		return err
	}
	if err := verbs.Check(root, args); err != nil {
		return err
	}
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// exitError carries an exit code with an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func invalid(err error) error { return &exitError{code: exitInvalid, err: err} }
func invalidf(format string, args ...any) error {
	return invalid(fmt.Errorf(format, args...))
}

// report prints err and returns the exit code for it.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if !errors.Is(err, errChanged) { // the diff said it all
		fmt.Fprintln(stderr, "ostset:", err)
	}
	return exitCode(err)
}

func exitCode(err error) int {
	var ee *exitError
	var nr *engine.NoReplicaError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, new(*verbs.InvalidError)):
		return exitInvalid
	case errors.As(err, &nr) && nr.Outside: // a replica name mistyped
		return exitInvalid
	case errors.Is(err, context.DeadlineExceeded):
		return exitTimedOut
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, state.ErrUnknownSet), errors.As(err, new(*state.OwnerError)):
		return exitInvalid
	}
	return exitFailure
}
