package present

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// PrintNotReady says, for each replica that is not ready, why: the short
// reason, the last healthcheck output in full and its last log lines.
func PrintNotReady(w io.Writer, containers []plan.ContainerStatus, now time.Time) {
	for _, c := range containers {
		d := c.NotReady
		if c.Ready || (d == nil && c.CrashLoop == nil) {
			continue
		}
		fmt.Fprintf(w, "  %s not ready: %s\n", c.Name, cmp.Or(c.Reason, c.State))
		if cl := c.CrashLoop; cl != nil {
			times := fmt.Sprintf("%d times", cl.Recreations)
			if cl.Recreations == 1 {
				times = "once"
			}
			fmt.Fprintf(w, "    CrashLoopBackOff: exited and recreated %s in a row; %s\n", times, CrashLoopNote(cl, now))
		}
		if d == nil {
			continue
		}
		if d.HealthOutput != "" {
			fmt.Fprintln(w, "    last healthcheck:")
			printIndented(w, "      ", d.HealthOutput)
		}
		if len(d.Logs) > 0 {
			fmt.Fprintln(w, "    last log lines:")
			printIndented(w, "      ", strings.Join(d.Logs, "\n"))
		}
	}
}

func printIndented(w io.Writer, indent, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
}
