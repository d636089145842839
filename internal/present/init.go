package present

import (
	"fmt"
	"io"

	"github.com/ostset/ostset/engine/plan"
)

// initSummary says where an ordinal's init containers are.
func initSummary(s plan.InitStatus) string {
	done := fmt.Sprintf("%d of %d succeeded", s.Succeeded, s.Total)
	switch s.State {
	case plan.InitFailed:
		return fmt.Sprintf("%s; init container %s (%s) exited with code %d", done, s.Init, s.Container, s.ExitCode)
	case plan.InitRunning:
		return fmt.Sprintf("%s; init container %s (%s) running", done, s.Init, s.Container)
	case plan.InitPending:
		return fmt.Sprintf("%s; init container %s next", done, s.Init)
	}
	return done + "; the replica container is next"
}

// PrintInits describes each initializing ordinal, with the last lines of a
// failed init container's output.
func PrintInits(w io.Writer, indent string, inits []plan.InitStatus) {
	for _, s := range inits {
		fmt.Fprintf(w, "%s%s (revision %s): %s\n", indent, s.Replica, s.Revision, initSummary(s))
		printOutput(w, indent+"  ", s)
	}
}

// PrintInitFailures names each failed init container with its exit code and the
// last lines of its output.
func PrintInitFailures(w io.Writer, indent string, inits []plan.InitStatus) {
	for _, s := range inits {
		if s.State == plan.InitFailed {
			fmt.Fprintf(w, "%s%s: init container %s (%s) exited with code %d\n", indent, s.Replica, s.Init, s.Container, s.ExitCode)
			printOutput(w, indent+"  ", s)
		}
	}
}

func printOutput(w io.Writer, indent string, s plan.InitStatus) {
	if s.State != plan.InitFailed || len(s.Logs) == 0 {
		return
	}
	fmt.Fprintf(w, "%slast output:\n", indent)
	for _, l := range s.Logs {
		fmt.Fprintf(w, "%s  %s\n", indent, l)
	}
}
