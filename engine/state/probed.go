package state

import (
	"maps"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// ProbeVerdict is the verdict of this process's prober on one container.
type ProbeVerdict struct {
	Ready bool
	Since time.Time
}

// NoteProbes records the prober's verdicts (container ID → verdict; nil
// when this process probes none) in State.Probed, for the replicas observed:
// a verdict of this process replaces what was recorded; a container no
// process here probes keeps the record another process made, while its
// engine health is still "starting"; records of containers gone, stopped,
// judged by the engine itself, or restarted since their probe passed
// (Replica.StartedAt) are dropped.
func (st *State) NoteProbes(rs []plan.Replica, verdicts map[string]ProbeVerdict) {
	keep := map[string]time.Time{}
	for _, r := range rs {
		if !health.ProbeWanted(r.State, r.Health, true) {
			continue
		}
		if v, ok := verdicts[r.ID]; ok {
			if v.Ready && !v.Since.Before(r.StartedAt) {
				keep[r.ID] = v.Since
			}
			continue
		}
		if t, ok := st.Probed[r.ID]; ok && !t.Before(r.StartedAt) { // not of an earlier run (a restart)
			keep[r.ID] = t
		}
	}
	if len(keep) == 0 {
		st.Probed = nil
		return
	}
	if !maps.Equal(keep, st.Probed) {
		st.Probed = keep
	}
}

// MarkProbed marks the replicas that ostset's probe made ready while the
// engine says "starting" (plan.Replica.Probed), as State.Probed records
// them, and gives those with no ReadySince the time the probe passed. It
// is how a prober's result reaches the planner: through the observation.
func (st State) MarkProbed(rs []plan.Replica) {
	for i := range rs {
		r := &rs[i]
		since, ok := st.Probed[r.ID]
		if !ok || !health.ProbeWanted(r.State, r.Health, true) || since.Before(r.StartedAt) {
			continue
		}
		r.Probed = true
		if r.ReadySince.IsZero() {
			r.ReadySince = since
		}
	}
}

// ProbedNow returns the recorded probe passes that stand for the replicas'
// current runs (container ID → when the probe passed).
func (st State) ProbedNow(rs []plan.Replica) map[string]time.Time {
	out := map[string]time.Time{}
	for _, r := range rs {
		if t, ok := st.Probed[r.ID]; ok && !t.Before(r.StartedAt) && health.ProbeWanted(r.State, r.Health, true) {
			out[r.ID] = t
		}
	}
	return out
}
