package engine

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ostset/ostset/health"
)

// NotReadyDetail says why a replica is not ready, as the runtime saw it.
// Observe fills it (Replica.NotReady) only for replicas that are not ready, so
// that observing a healthy set costs nothing more.
type NotReadyDetail struct {
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

// Ready is the readiness rule (health.Ready) for an observed replica.
func (r Replica) Ready() bool {
	return health.Ready(hc(&r))
}

// maxOutput bounds a healthcheck output or an error in one-line messages.
const maxOutput = 100

// Reason is the short form of why r is not ready, for a table: "exit 1, 3
// restarts", `health: "connection refused"`; "" when nothing is known.
func (r Replica) Reason() string {
	exit, out := r.notReadyParts()
	if out != "" {
		out = "health: " + out
	}
	return joinNonEmpty(exit, out)
}

// waitDetail is what a waiting message adds to the state it names ("restarting:
// exit 1, 3 restarts", `health: unhealthy: "connection refused"`).
func (r Replica) waitDetail() string {
	exit, out := r.notReadyParts()
	return joinNonEmpty(exit, out)
}

// notReadyParts returns what the exits say ("error: …", "exit 1 (OOM killed)",
// "3 restarts") and the last failed probe's output, quoted.
func (r Replica) notReadyParts() (exit, out string) {
	d := r.NotReady
	if d == nil {
		return "", ""
	}
	var parts []string
	if d.Error != "" {
		parts = append(parts, "error: "+quoteLine(d.Error))
	}
	if r.State == StateRestarting || r.State == StateExited || r.State == StateDead {
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
	if r.State == StateRunning && d.HealthOutput != "" {
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

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

var quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// sameWait is a waiting message with its quoted output left out: a probe's
// output often carries times or counters, and a new one with every probe is
// not a new reason to wait.
func sameWait(w string) string {
	return quotedRe.ReplaceAllString(w, `"…"`)
}

// parenthesised is " (s)", or "" for an empty s.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
