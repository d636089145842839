package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func checkFormat(format string, allowed ...string) error {
	for _, f := range allowed {
		if format == f {
			return nil
		}
	}
	return invalidf("-o %q: want one of %v", format, allowed)
}

func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 3, ' ', 0) }

// printStructuredLine writes v as one line of JSON.
func printStructuredLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// format is the -o flag when given, else the output setting (settings file or
// OSTSET_OUTPUT) when this command supports it.
func (a *app) format(cmd *cobra.Command, flag string, supported ...string) string {
	if cmd.Flags().Changed("output") {
		return flag
	}
	if setting := a.v.GetString("output"); slices.Contains(supported, setting) {
		return setting
	}
	return flag
}

// daemonInfo says whether a daemon keeps the state directory's sets converged.
type daemonInfo struct {
	Running bool `json:"running"`
	PID     int  `json:"pid,omitempty"`
}

func (a *app) daemon() daemonInfo {
	pid, running := a.store().DaemonRunning()
	return daemonInfo{Running: running, PID: pid}
}

// daemonNote says in one line what a daemon, or its absence, means for the sets.
func (d daemonInfo) note() string {
	if d.Running {
		return fmt.Sprintf("daemon running (pid %d): it carries changes out and recreates replicas that go missing", d.PID)
	}
	return "no daemon runs: changes wait for the next ostset command, and nothing recreates a replica removed by hand (see 'ostset daemon install')"
}
