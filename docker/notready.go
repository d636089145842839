package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// Bounds on what a not-ready replica's detail carries from its logs.
const (
	notReadyLogLines = 10
	maxLogBytes      = 64 << 10
	maxReasonLine    = 300 // runes
)

// fillNotReady inspects a replica the list showed as not ready and records why
// (engine.NotReadyDetail): the last exit code, the restarts, the engine's error
// and the output of the last failed probe, and with logs its last log lines. A
// container gone since the list keeps no detail.
func (r *Runtime) fillNotReady(ctx context.Context, rep *plan.Replica, logs bool) error {
	res, err := r.cli.ContainerInspect(ctx, rep.ID, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect container %s: %w", rep.Name, err)
	}
	c := res.Container
	if rep.State == plan.StateRunning && rep.Health == plan.HealthStarting {
		rep.Healthcheck, rep.StartedAt = inspectedHealthcheck(c), startedAt(c)
	}
	d := notReadyDetail(c)
	if logs {
		tty := c.Config != nil && c.Config.Tty
		d.Logs = r.lastLogLines(ctx, c.ID, tty)
	}
	rep.NotReady = d
	return nil
}

// notReadyDetail reads why a container is not ready from its inspect.
func notReadyDetail(c container.InspectResponse) *plan.NotReadyDetail {
	d := &plan.NotReadyDetail{Restarts: c.RestartCount}
	st := c.State
	if st == nil {
		return d
	}
	d.ExitCode, d.OOMKilled, d.Error = st.ExitCode, st.OOMKilled, st.Error
	if h := st.Health; h != nil && len(h.Log) > 0 {
		if last := h.Log[len(h.Log)-1]; last != nil && last.ExitCode != 0 {
			d.HealthOutput = strings.TrimSpace(last.Output)
			if d.HealthOutput == "" {
				d.HealthOutput = fmt.Sprintf("exit %d, no output", last.ExitCode)
			}
		}
	}
	return d
}

// fillFromInspect reads a running replica's health from an inspect, for an
// engine whose container list does not carry it (Podman), and then what the
// other paths read from their own inspect: ReadySince for a ready replica
// when timings are asked for, why one is not ready, and the healthcheck of
// one still starting. A container gone since the list keeps what the list
// said, with health starting when the list could not tell (it is never taken
// for a replica without a healthcheck).
func (r *Runtime) fillFromInspect(ctx context.Context, rep *plan.Replica, opts engine.ObserveOptions) error {
	res, err := r.cli.ContainerInspect(ctx, rep.ID, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		rep.Health = plan.HealthStarting // unknown, so not ready
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect container %s: %w", rep.Name, err)
	}
	c := res.Container
	if c.State != nil && c.State.Status != "" {
		rep.State = string(c.State.Status)
	}
	rep.Health = inspectedHealth(c)
	if rep.State == plan.StateRunning && rep.Health == plan.HealthStarting {
		rep.Healthcheck, rep.StartedAt = inspectedHealthcheck(c), startedAt(c)
	}
	if rep.Ready() {
		if opts.Timings {
			rep.ReadySince = readySince(c.State)
		}
		return nil
	}
	d := notReadyDetail(c)
	if opts.Logs {
		d.Logs = r.lastLogLines(ctx, c.ID, c.Config != nil && c.Config.Tty)
	}
	rep.NotReady = d
	return nil
}

// lastLogLines returns the container's last log lines, stdout and stderr
// together, each cut to maxReasonLine runes. Logs are an aid: a log driver that
// cannot be read (none, syslog) gives none, not an error.
func (r *Runtime) lastLogLines(ctx context.Context, id string, tty bool) []string {
	body, err := r.logStream(ctx, id, id, tty, false, fmt.Sprint(notReadyLogLines), "")
	if err != nil {
		return nil
	}
	defer func() { _ = body.Close() }()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(body, maxLogBytes))
	if err != nil && buf.Len() == 0 {
		return nil
	}
	return logLines(buf.String())
}

// logLines splits log text into its last notReadyLogLines non-empty lines.
func logLines(text string) []string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			continue
		}
		if utf8.RuneCountInString(l) > maxReasonLine {
			l = string([]rune(l)[:maxReasonLine-1]) + "…"
		}
		lines = append(lines, l)
	}
	return lines[max(0, len(lines)-notReadyLogLines):]
}
