package plan

import (
	"testing"
)

// exitedN is n replicas at rev that were stopped (exited).
func exitedN(n int, rev string) []Replica {
	var rs []Replica
	for i := range n {
		rs = append(rs, rep(i, rev, StateExited, HealthNone))
	}
	return rs
}

func ids(rs []Replica) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// TestPlanStopped pins the rule of a stopped set (stopped.go): stop from the
// highest ordinal down and heal nothing while stopped; once started, start
// the containers it kept in the policy's order rather than recreate them.
func TestPlanStopped(t *testing.T) {
	initRunning := InitContainer{ID: "id-init", Name: InitContainerName("web", 1, "clone"), Ordinal: 1, Init: "clone", Revision: "b", State: StateRunning}
	cases := []struct {
		name    string
		set     bool // Parallel
		stopped bool
		cur     string
		obs     Observed
		ids     []string
		want    string
	}{
		{name: "ordered: the highest running replica is stopped first, alone",
			stopped: true, cur: "b", obs: Observed{Replicas: okN(3, "b")},
			want: "stop web-2: set stopped\n"},
		{name: "ordered: the next one once the one above is stopped",
			stopped: true, cur: "b", obs: Observed{Replicas: append(okN(2, "b"), rep(2, "b", StateExited, HealthNone))},
			want: "stop web-1: set stopped\n"},
		{name: "parallel: every running replica is stopped at once",
			set: true, stopped: true, cur: "b", obs: Observed{Replicas: okN(3, "b")},
			want: "stop web-2: set stopped\nstop web-1: set stopped\nstop web-0: set stopped\n"},
		{name: "stopped: nothing exited is recreated, nothing missing created, nothing old replaced",
			stopped: true, cur: "a", obs: Observed{Replicas: exitedN(2, "a")},
			want: "complete\n"},
		{name: "stopped: a running init container is removed, to run again at start",
			stopped: true, cur: "b", obs: Observed{Replicas: []Replica{rep(0, "b", StateExited, HealthNone)}, Inits: []InitContainer{initRunning}},
			want: "delete-init web-1-init-clone: set stopped\n"},
		{name: "ordered start: the lowest kept replica is started, not the others",
			cur: "b", obs: Observed{Replicas: exitedN(3, "b")}, ids: ids(exitedN(3, "b")),
			want: "start web-0: set started (it was stopped by ostset stop)\n"},
		{name: "ordered start: the next once the one below is ready",
			cur: "b", obs: Observed{Replicas: append(okN(1, "b"), exitedN(3, "b")[1:]...)}, ids: ids(exitedN(3, "b")),
			want: "start web-1: set started (it was stopped by ostset stop)\n"},
		{name: "parallel start: every kept replica is started at once",
			set: true, cur: "b", obs: Observed{Replicas: exitedN(3, "b")}, ids: ids(exitedN(3, "b")),
			want: "start web-0: set started (it was stopped by ostset stop)\nstart web-1: set started (it was stopped by ostset stop)\n" +
				"start web-2: set started (it was stopped by ostset stop)\n"},
		{name: "start: a replica removed while stopped is created again at the update revision",
			cur: "a", obs: Observed{Replicas: okN(2, "a")}, ids: ids(exitedN(3, "a")),
			want: "create web-2 at b: missing\n"},
		{name: "start: an exited replica the set did not keep stopped is recreated as usual",
			cur: "b", obs: Observed{Replicas: exitedN(1, "b")},
			want: "delete web-0: exited; it will be recreated\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := testSet()
			if c.set {
				set = testSet(parallel)
			}
			got := MakePlan(Input{Set: set, CurrentRevision: c.cur, UpdateRevision: "b", Observed: c.obs, Now: t0,
				Stopped: c.stopped, StoppedIDs: c.ids}).String()
			if got != c.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestStatusStopped: a stopped set and its kept replicas say so.
func TestStatusStopped(t *testing.T) {
	s := MakePlan(Input{Set: testSet(), CurrentRevision: "b", UpdateRevision: "b", Observed: Observed{Replicas: exitedN(2, "b")}, Now: t0, Stopped: true}).Status
	if !s.Stopped || len(s.Containers) != 2 || !s.Containers[0].Stopped || s.Containers[0].Reason != "stopped (ostset stop)" {
		t.Errorf("status: %+v", s)
	}
	if len(s.Pending) != 1 || s.Pending[0].Reason != "not created: the set is stopped (ostset start)" {
		t.Errorf("pending: %+v", s.Pending)
	}
}
