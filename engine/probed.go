package engine

import (
	"context"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// probes brings ostset's own probes into a pass's observation: the prober
// (if this process has one) is shown the set's replicas, so it probes those
// that start, its verdicts are recorded in the state, and the replicas it
// made ready are marked (plan.Replica.Probed) before the planner sees them.
func (c *Controller) probes(ctx context.Context, st *state.State, obs *plan.Observed) {
	var verdicts map[string]state.ProbeVerdict
	if c.Prober != nil {
		c.Prober.Sync(st.Spec.Name, obs.Replicas, st.ProbedNow(obs.Replicas))
		res := c.Prober.Results(st.Spec.Name)
		verdicts = make(map[string]state.ProbeVerdict, len(res))
		for id, r := range res {
			verdicts[id] = state.ProbeVerdict{Ready: r.Ready, Since: r.Since}
		}
	}
	st.NoteProbes(obs.Replicas, verdicts)
	st.MarkProbed(obs.Replicas)
	if c.Liveness == nil {
		st.MarkLiveness(obs.Replicas)
		return
	}
	if c.Liveness.Pass(ctx, st, obs, func(replica, msg string) { c.emit(st.Spec.Name, replica, "%s", msg) }) {
		_ = c.Store.Save(*st) // a restart is counted even if this pass's plan is thrown away (ErrReplan)
	}
}

// Liveness runs replicas' liveness and startup probes (engine/liveness):
// each pass hands it the set's state and observation before it plans, and
// it restarts what failed, records and marks (plan.Replica.Unstarted),
// and reports whether it restarted any.
type Liveness interface {
	Pass(ctx context.Context, st *state.State, obs *plan.Observed, emit func(replica, message string)) (restarted bool)
}

// probeWake is the channel a waiting loop of set selects on for the
// prober's verdicts (nil without a prober).
func (c *Controller) probeWake(set string) <-chan struct{} {
	if c.Prober == nil {
		return nil
	}
	return c.Prober.Wake(set)
}
