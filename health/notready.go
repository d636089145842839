package health

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// NotReady says why a container is not ready, as the container engine saw it.
// The runtime fills it only for replicas that are not ready, so that
// observing a healthy set costs nothing more.
type NotReady struct {
	// ExitCode is the exit code of the last run; meaningful while the
	// container is not running (Docker resets it when the container starts).
	ExitCode  int  `json:"exitCode"`
	OOMKilled bool `json:"oomKilled,omitempty"`
	// Restarts is how often Docker restarted the container (its restart policy).
	Restarts int `json:"restarts"`
	// Error is why the engine could not start the container, if it could not.
	Error string `json:"error,omitempty"`
	// HealthOutput is the output of the last healthcheck probe, when it failed.
	HealthOutput string `json:"healthOutput,omitempty"`
	// Logs are the container's last log lines, when asked for
	// (ObserveOptions.Logs).
	Logs []string `json:"logs,omitempty"`
}

// maxOutput bounds a healthcheck output or an error in one-line messages.
const maxOutput = 100

// Why words why a container in Docker state state is not ready: what the
// exits say ("error: …", "exit 1 (OOM killed)", "3 restarts") and the last
// failed probe's output, quoted. Both are "" when nothing is known.
func Why(state string, d *NotReady) (exit, out string) {
	if d == nil {
		return "", ""
	}
	var parts []string
	if d.Error != "" {
		parts = append(parts, "error: "+quoteLine(d.Error))
	}
	if state == "restarting" || state == "exited" || state == "dead" {
		e := fmt.Sprintf("exit %d", d.ExitCode)
		if d.OOMKilled {
			e += " (OOM killed)"
		}
		parts = append(parts, e)
	}
	switch {
	case d.Restarts == 1:
		parts = append(parts, "1 restart")
	case d.Restarts > 1:
		parts = append(parts, fmt.Sprintf("%d restarts", d.Restarts))
	}
	if state == "running" && d.HealthOutput != "" {
		out = quoteLine(d.HealthOutput)
	}
	return strings.Join(parts, ", "), out
}

// quoteLine quotes the last non-empty line of s, shortened to maxOutput runes.
func quoteLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if utf8.RuneCountInString(line) > maxOutput {
		line = string([]rune(line)[:maxOutput-1]) + "…"
	}
	return fmt.Sprintf("%q", line)
}
