package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"io"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// maxProbeOutput bounds what is kept of a probe's output, as Docker keeps 4 KiB.
const maxProbeOutput = 4 << 10

// ProbeHealth runs a container's healthcheck test once, through an exec as
// Docker's own healthcheck runs it, bounded by the healthcheck's timeout. It
// reports whether the test passed (exit 0) and its output. An error means the
// test could not be run at all (the container is gone or stopped, the engine
// failed); a test that runs and fails, or outlives its timeout, is a failed
// probe, not an error. The container must carry the set's label.
func (r *Runtime) ProbeHealth(ctx context.Context, set, id string, hc plan.Healthcheck) (bool, string, error) {
	cmd, ok := probeCommand(hc.Test)
	if !ok {
		return false, "", fmt.Errorf("healthcheck %q cannot be run", hc.Test)
	}
	timeout := health.Check{Timeout: hc.Timeout}.Defaults().Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	created, err := r.cli.ExecCreate(ctx, id, client.ExecCreateOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return r.probeError(ctx, id, err)
	}
	att, err := r.cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return r.probeError(ctx, id, err)
	}
	defer att.Close()
	var out limitedBuffer
	var copyErr error
	done := make(chan struct{})
	go func() {
		_, copyErr = stdcopy.StdCopy(&out, &out, att.Reader)
		close(done)
	}()
	select {
	case <-ctx.Done():
		att.Close()
		<-done // the copy ends with the closed connection
		return false, fmt.Sprintf("Health check exceeded timeout (%s)", timeout), nil
	case <-done:
		if copyErr != nil && !errors.Is(copyErr, io.EOF) {
			return r.probeError(ctx, id, copyErr)
		}
	}
	res, err := r.cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
	if err != nil {
		return r.probeError(ctx, id, err)
	}
	if res.Running { // the stream ended before the process (should not happen)
		return false, "the probe's output ended before it exited", nil
	}
	return res.ExitCode == 0, strings.TrimSpace(out.String()), nil
}

// probeError words an exec that failed: past the probe's deadline it is a
// failed probe (the engine was too slow for the timeout), otherwise an error.
func (r *Runtime) probeError(ctx context.Context, id string, err error) (bool, string, error) {
	if ctx.Err() != nil {
		return false, "Health check exceeded timeout", nil
	}
	return false, "", fmt.Errorf("probe container %s: %w", shortID(id), err)
}

// probeCommand is the command a healthcheck test runs: CMD's arguments, or
// CMD-SHELL's through /bin/sh -c. NONE and an empty test run nothing.
func probeCommand(test []string) ([]string, bool) {
	if len(test) < 2 {
		return nil, false
	}
	switch test[0] {
	case "CMD":
		return test[1:], true
	case "CMD-SHELL":
		return []string{"/bin/sh", "-c", strings.Join(test[1:], " ")}, true
	}
	return nil, false
}

// inspectedHealthcheck is the healthcheck an inspected container carries, for
// ostset's prober, with a CMD-SHELL test turned into the container's own shell
// when it has one (Dockerfile SHELL); nil when it has none that runs.
func inspectedHealthcheck(c container.InspectResponse) *plan.Healthcheck {
	if c.Config == nil || c.Config.Healthcheck == nil {
		return nil
	}
	h := c.Config.Healthcheck
	test := h.Test
	if _, ok := probeCommand(test); !ok {
		return nil
	}
	if test[0] == "CMD-SHELL" && len(c.Config.Shell) > 0 {
		test = append(append([]string{"CMD"}, c.Config.Shell...), strings.Join(test[1:], " "))
	}
	return &plan.Healthcheck{
		Test: test, Interval: h.Interval, Timeout: h.Timeout, Retries: h.Retries,
		StartPeriod: h.StartPeriod, StartInterval: h.StartInterval,
	}
}

// inspectedHealth is the health status of an inspected container
// (plan.HealthNone when it has no healthcheck).
func inspectedHealth(c container.InspectResponse) string {
	if c.State == nil || c.State.Health == nil {
		return plan.HealthNone
	}
	switch s := c.State.Health.Status; s {
	case "", container.NoHealthcheck:
		return plan.HealthNone
	default:
		return string(s)
	}
}

// startedAt is when an inspected container last started (zero if unknown).
func startedAt(c container.InspectResponse) time.Time {
	if c.State == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, c.State.StartedAt)
	if err != nil {
		return time.Time{}
	}
	return t
}

// limitedBuffer keeps the first maxProbeOutput bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxProbeOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
