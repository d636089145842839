package present

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/engine/plan"
)

// DeletingNote says that a set's delete did not finish, and the two ways on.
func DeletingNote(name string, d *plan.DeleteIntent) string {
	volumes := "kept"
	if d.Volumes {
		volumes = "to be removed"
	}
	return fmt.Sprintf("%s is being deleted (an 'ostset down' did not finish; volumes %s): run 'ostset down %s' to finish, or 'ostset up -f FILE' to cancel the delete", name, volumes, name)
}

// PrintRemovals says, for each replica whose removal a pass recorded and did
// not finish (State.Removing), that it is on its way out.
func PrintRemovals(w io.Writer, prefix string, containers []plan.ContainerStatus) {
	for _, c := range containers {
		if c.RemovalPending != nil {
			fmt.Fprintf(w, "%s%s is being removed (recorded %s ago; the removal did not finish): the next pass of any ostset command or the daemon removes it\n",
				prefix, c.Name, Age(*c.RemovalPending, time.Now()))
		}
	}
}

// PrintStructured writes v as JSON or YAML (through JSON, so field names match).
func PrintStructured(w io.Writer, format string, v any) error {
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

// Age renders a duration like kubectl: 12s, 5m, 3h, 2d.
func Age(since, now time.Time) string {
	if since.IsZero() {
		return "<unknown>"
	}
	d := now.Sub(since)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// CrashLoopNote says when a replica in crash-loop back-off is recreated.
func CrashLoopNote(c *plan.CrashLoopStatus, now time.Time) string {
	return fmt.Sprintf("next try at %s (in %s)", c.NextTry.Local().Format(time.TimeOnly), max(c.NextTry.Sub(now), 0).Round(time.Second))
}

// FailureWhen says when the engine last refused a replica and when it is
// tried again, so that a reason naming a port's holder reads as of then:
// " (refused 12s ago; next try in 48s)". Empty when the time is unknown.
func FailureWhen(at, retry time.Time, now time.Time) string {
	if at.IsZero() {
		return ""
	}
	s := " (refused " + Age(at, now) + " ago"
	if retry.After(now) {
		s += "; next try in " + retry.Sub(now).Round(time.Second).String()
	}
	return s + ")"
}
