package main

import (
	"fmt"
	"io"

	"github.com/ostset/ostset/engine"
)

// initSummary says where an ordinal's init containers are.
func initSummary(s engine.InitStatus) string {
	done := fmt.Sprintf("%d of %d succeeded", s.Succeeded, s.Total)
	switch s.State {
	case engine.InitFailed:
		return fmt.Sprintf("%s; init container %s (%s) exited with code %d", done, s.Init, s.Container, s.ExitCode)
	case engine.InitRunning:
		return fmt.Sprintf("%s; init container %s (%s) running", done, s.Init, s.Container)
	case engine.InitPending:
		return fmt.Sprintf("%s; init container %s next", done, s.Init)
	}
	return done + "; the replica container is next"
}

// printInits describes each initializing ordinal, with the last lines of a
// failed init container's output.
func printInits(w io.Writer, indent string, inits []engine.InitStatus) {
	for _, s := range inits {
		fmt.Fprintf(w, "%s%s (revision %s): %s\n", indent, s.Replica, s.Revision, initSummary(s))
		printOutput(w, indent+"  ", s)
	}
}

// printInitFailures names each failed init container with its exit code and the
// last lines of its output.
func printInitFailures(w io.Writer, indent string, inits []engine.InitStatus) {
	for _, s := range inits {
		if s.State == engine.InitFailed {
			fmt.Fprintf(w, "%s%s: init container %s (%s) exited with code %d\n", indent, s.Replica, s.Init, s.Container, s.ExitCode)
			printOutput(w, indent+"  ", s)
		}
	}
}

func printOutput(w io.Writer, indent string, s engine.InitStatus) {
	if s.State != engine.InitFailed || len(s.Logs) == 0 {
		return
	}
	fmt.Fprintf(w, "%slast output:\n", indent)
	for _, l := range s.Logs {
		fmt.Fprintf(w, "%s  %s\n", indent, l)
	}
}
