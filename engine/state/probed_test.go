package state

import (
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// A probe record made by another process stands while the replica is still
// starting, and is dropped once the engine judged it, or the container
// started again after the probe passed (restarted in place).
func TestProbedRecordsOfOtherProcesses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := State{Probed: map[string]time.Time{"a": t0.Add(time.Second), "b": t0.Add(time.Second), "c": t0.Add(time.Second)}}
	rs := []plan.Replica{
		{ID: "a", State: plan.StateRunning, Health: plan.HealthStarting, StartedAt: t0},
		{ID: "b", State: plan.StateRunning, Health: plan.HealthHealthy, StartedAt: t0},
		{ID: "c", State: plan.StateRunning, Health: plan.HealthStarting, StartedAt: t0.Add(2 * time.Second)},
	}
	st.NoteProbes(rs, nil)
	if len(st.Probed) != 1 || st.Probed["a"].IsZero() {
		t.Fatalf("records %v, want a's only", st.Probed)
	}
	st.Probed["c"] = t0.Add(time.Second) // as a stale file would have it
	st.MarkProbed(rs)
	if !rs[0].Probed || rs[1].Probed || rs[2].Probed {
		t.Fatalf("probed marks %v %v %v, want a only", rs[0].Probed, rs[1].Probed, rs[2].Probed)
	}
	if !rs[0].ReadySince.Equal(t0.Add(time.Second)) {
		t.Errorf("a ready since %v, want when its probe passed", rs[0].ReadySince)
	}
}
