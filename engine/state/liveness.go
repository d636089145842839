package state

import (
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// Liveness is what ostset's liveness and startup probes (engine/liveness)
// recorded about one replica container, kept in the state so that every
// command sees it and a new driving process starts from it.
type Liveness struct {
	// Started is when the container's startup probe passed for its current
	// run; zero while it has not (the replica is not ready: MarkLiveness).
	Started time.Time `json:"started,omitzero"`
	// Restarts is how often a failed liveness or startup probe had ostset
	// restart the container in place.
	Restarts int `json:"restarts,omitempty"`
	// Backoff holds the next restart back, as the kubelet's back-off does
	// (health.CrashLoop's delays).
	Backoff health.CrashLoop `json:"backoff,omitzero"`
	// Reason is why the container was last restarted, and Restarted when.
	Reason    string    `json:"reason,omitempty"`
	Restarted time.Time `json:"restarted,omitzero"`
	// Failed is why the container is to be restarted, while the back-off
	// holds its restart back (it is not ready meanwhile).
	Failed string `json:"failed,omitempty"`
}

// Probes returns the startup and liveness probes of the stored revision
// named rev (nil when it has none, or is not stored).
func (st State) Probes(rev string) (startup, liveness *config.Healthcheck) {
	for _, r := range st.Revisions {
		if r.Name == rev {
			return r.Spec.Template.Startup, r.Spec.Template.Liveness
		}
	}
	return nil, nil
}

// MarkLiveness marks in the observation what State.Liveness records: a
// running replica whose revision has a startup probe that has not passed
// for it is Unstarted (not ready, with why), and every replica carries its
// restarts. It is how the startup probe reaches the planner: through the
// observation, as Probed does.
func (st State) MarkLiveness(rs []plan.Replica) {
	for i := range rs {
		r := &rs[i]
		rec := st.Liveness[r.ID]
		r.Restarts = rec.Restarts
		if rec.Failed != "" && r.State == plan.StateRunning {
			r.Unstarted = true
			r.NotReady = withOutput(r.NotReady, rec.Failed+"; restart held back")
			continue
		}
		startup, _ := st.Probes(r.Revision)
		if startup == nil || r.State != plan.StateRunning {
			continue
		}
		if !rec.Started.IsZero() {
			if rec.Started.After(r.ReadySince) && !r.ReadySince.IsZero() {
				r.ReadySince = rec.Started // ready once started, for minReadySeconds
			}
			continue
		}
		r.Unstarted = true
		r.NotReady = withOutput(r.NotReady, "startup probe has not passed yet")
	}
}

// withOutput is a copy of d (or a new detail) saying out as the probe's output.
func withOutput(d *plan.NotReadyDetail, out string) *plan.NotReadyDetail {
	c := plan.NotReadyDetail{}
	if d != nil {
		c = *d
	}
	c.HealthOutput = out
	return &c
}

// KeepLiveness drops the records of containers that are not observed.
func (st *State) KeepLiveness(rs []plan.Replica) {
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.ID] = true
	}
	for id := range st.Liveness {
		if !seen[id] {
			delete(st.Liveness, id)
		}
	}
	if len(st.Liveness) == 0 {
		st.Liveness = nil
	}
}
