package liveness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/health"
)

// Pass brings the probes into one pass of the controller over set st, with
// its observation obs, under the set's lock and before the planner runs:
//
//   - the running replicas whose revision has a startup or liveness probe
//     are probed (Sync), the others no longer;
//   - a startup probe that passed is recorded in st (State.Liveness);
//   - a replica whose probe failed is restarted in place (the same
//     container, with the set's grace period for the stop), counted and
//     reported through emit ("web-1: Liveness probe failed: …, restarting"),
//     unless the back-off between restarts holds it back: then the restart
//     waits, and the manager wakes the set when it is due;
//   - the replicas are marked (state.MarkLiveness): one whose startup probe
//     has not passed, or whose probe failed, is not ready.
//
// It reports whether it restarted any replica.
func (m *Manager) Pass(ctx context.Context, st *state.State, obs *plan.Observed, emit func(replica, message string)) (restarted bool) {
	set := st.Spec.Name
	st.KeepLiveness(obs.Replicas)
	want := map[string]Want{}
	for _, r := range obs.Replicas {
		if w, ok := wantOf(*st, r); ok {
			want[r.ID] = w
		}
	}
	m.Sync(set, want)
	now := m.clock.Now()
	held := map[string]string{} // not ready in this pass, and why
	recs := maps.Clone(st.Liveness)
	if recs == nil {
		recs = map[string]state.Liveness{}
	}
	results := m.Results(set)
	for i := range obs.Replicas {
		r := &obs.Replicas[i]
		res, ok := results[r.ID]
		rec, had := recs[r.ID]
		if !ok && !had {
			continue
		}
		if ok && res.Failed == "" {
			rec.Failed = "" // probed afresh (by a new process) and not failed (yet)
		}
		if rec.Started.IsZero() && !res.StartupPassed.IsZero() {
			rec.Started = res.StartupPassed
		}
		switch {
		case res.Failed == "" && rec.Backoff.Count > 0:
			rec.Backoff, _ = rec.Backoff.Seen(health.Ready(health.Container{State: r.State, Health: r.Health, Probed: r.Probed}), now)
		case res.Failed == "":
		case now.Before(rec.Backoff.After):
			rec.Failed = res.Failed
			held[r.ID] = fmt.Sprintf("%s; restart in %s (back-off)", res.Failed, rec.Backoff.After.Sub(now).Round(time.Second))
			m.WakeAt(set, rec.Backoff.After)
		default:
			if err := m.rt.RestartReplica(ctx, set, r.ID, st.Spec.GracePeriod()); err != nil {
				if pe := (*plan.PreStopError)(nil); !errors.As(err, &pe) {
					m.log().Warn("liveness restart", "set", set, "replica", r.Name, "err", err)
					held[r.ID] = res.Failed
					continue
				}
				emit(r.Name, fmt.Sprintf("%v (restarted all the same)", err))
			}
			emit(r.Name, r.Name+": "+res.Failed+", restarting")
			at := m.clock.Now() // the restart's end: its run begins, and the back-off counts, from there
			rec = state.Liveness{Restarts: rec.Restarts + 1, Backoff: rec.Backoff.Recreated(at), Reason: res.Failed, Restarted: at}
			m.Forget(r.ID)
			restarted = true
			held[r.ID] = "restarted: " + res.Failed // it is starting again: not ready in this pass
		}
		if rec == (state.Liveness{}) {
			delete(recs, r.ID)
			continue
		}
		recs[r.ID] = rec
	}
	st.Liveness = nil
	if len(recs) > 0 {
		st.Liveness = recs
	}
	st.MarkLiveness(obs.Replicas)
	for i := range obs.Replicas {
		if r := &obs.Replicas[i]; held[r.ID] != "" {
			d := plan.NotReadyDetail{}
			if r.NotReady != nil {
				d = *r.NotReady
			}
			d.HealthOutput = held[r.ID]
			r.Unstarted, r.NotReady = true, &d // after MarkLiveness, whose words it replaces
		}
	}
	return restarted
}

// wantOf is what r wants probed: its revision's startup and liveness
// probes, expanded for it, while it runs; false when it has none or does
// not run.
func wantOf(st state.State, r plan.Replica) (Want, bool) {
	if r.State != plan.StateRunning {
		return Want{}, false
	}
	for _, rev := range st.Revisions {
		if rev.Name != r.Revision {
			continue
		}
		t := rev.Spec.Template
		if t.Startup == nil && t.Liveness == nil {
			return Want{}, false
		}
		probes := config.Template{Startup: t.Startup, Liveness: t.Liveness}
		if x, err := config.Expand(probes, st.Spec.ReplicaVars(rev.Spec.ServiceName, r.Ordinal)); err == nil {
			probes = x
		}
		started := r.StartedAt
		if started.IsZero() {
			started = r.Created
		}
		if t := st.Liveness[r.ID].Restarted; t.After(started) {
			started = t // ostset restarted it: its run began then
		}
		return Want{Set: st.Spec.Name, Startup: SpecOf(probes.Startup), Liveness: SpecOf(probes.Liveness),
			Started: started, StartupPassed: st.Liveness[r.ID].Started}, true
	}
	return Want{}, false
}
