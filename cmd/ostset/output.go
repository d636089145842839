package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/internal/live"
)

// deletingNote says that a set's delete did not finish, and the two ways on.
func deletingNote(name string, d *engine.DeleteIntent) string {
	volumes := "kept"
	if d.Volumes {
		volumes = "to be removed"
	}
	return fmt.Sprintf("%s is being deleted (an 'ostset down' did not finish; volumes %s): run 'ostset down %s' to finish, or 'ostset up -f FILE' to cancel the delete", name, volumes, name)
}

// printRemovals says, for each replica whose removal a pass recorded and did
// not finish (State.Removing), that it is on its way out.
func printRemovals(w io.Writer, prefix string, containers []engine.ContainerStatus) {
	for _, c := range containers {
		if c.RemovalPending != nil {
			fmt.Fprintf(w, "%s%s is being removed (recorded %s ago; the removal did not finish): the next pass of any ostset command or the daemon removes it\n",
				prefix, c.Name, live.Age(*c.RemovalPending, time.Now()))
		}
	}
}

// printStructured writes v as JSON or YAML (through JSON, so field names match).
func printStructured(w io.Writer, format string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if format == "json" {
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return err
	}
	out, err := yaml.Marshal(generic)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

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
