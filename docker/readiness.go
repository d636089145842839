package docker

import (
	"context"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// fillReadySince inspects a replica the list showed as ready and sets ReadySince.
// A container gone since the list, or no longer ready, keeps a zero ReadySince.
func (r *Runtime) fillReadySince(ctx context.Context, rep *plan.Replica) error {
	if rep.State != plan.StateRunning || (rep.Health != plan.HealthHealthy && rep.Health != plan.HealthNone) {
		return nil
	}
	res, err := r.cli.ContainerInspect(ctx, rep.ID, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect container %s: %w", rep.Name, err)
	}
	rep.ReadySince = readySince(res.Container.State)
	return nil
}

// readySince is when an inspected container last became ready, zero if it is not
// ready or the time is unknown. Without a healthcheck it is StartedAt. With one it
// is the end of the first probe of the trailing run of passing probes (ExitCode 0)
// since StartedAt: exact when the log holds every probe since the start, otherwise
// (the engine keeps only the last 5) a later time than the truth, so the replica
// is never reported ready for longer than it was. A healthy container whose latest
// probe failed (fewer failures than retries) is reported ready since that probe.
// Healthy without a probe since StartedAt is unknown (zero). The result is never
// before StartedAt.
func readySince(st *container.State) time.Time {
	if st == nil || !st.Running || st.Paused || st.Restarting {
		return time.Time{}
	}
	started, err := time.Parse(time.RFC3339Nano, st.StartedAt)
	if err != nil {
		return time.Time{}
	}
	h := st.Health
	if h == nil || h.Status == "" || h.Status == container.NoHealthcheck {
		return started
	}
	if h.Status != container.Healthy {
		return time.Time{}
	}
	since := passingSince(h.Log, started)
	if since.IsZero() {
		return time.Time{}
	}
	return latest(started, since)
}

// passingSince returns the end of the first probe of the trailing passing run among
// the probes that started at or after started; zero if there are none.
func passingSince(log []*container.HealthcheckResult, started time.Time) time.Time {
	first := 0 // first probe of this run of the container
	for first < len(log) && (log[first] == nil || log[first].Start.Before(started)) {
		first++
	}
	if first == len(log) {
		return time.Time{}
	}
	i := len(log)
	for i > first && log[i-1].ExitCode == 0 {
		i--
	}
	if i == len(log) { // the latest probe failed
		return log[i-1].End
	}
	return log[i].End
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
