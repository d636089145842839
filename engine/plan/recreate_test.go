package plan

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ostset/ostset/config"
)

func recreateStrategy(s *config.Set) { s.UpdateStrategy.Type = config.Recreate }

// TestPlanRecreate: under Recreate every container of an older revision goes
// at once, in any policy and whatever its health, and nothing is created
// until the last is gone; then the new ones come in podManagementPolicy order.
func TestPlanRecreate(t *testing.T) {
	const why = ": Recreate a -> b: every old replica goes before any new one is created\n"
	notReady := rep(1, "a", StateRunning, HealthUnhealthy)
	exited := rep(2, "a", StateExited, HealthNone)
	removing := rep(1, "a", StateRemoving, HealthNone)
	initA := InitContainer{ID: "i0", Name: "web-0-init-clone", Ordinal: 0, Init: "clone", Revision: "a", State: StateRunning}
	cases := []struct {
		name   string
		set    config.Set
		paused bool
		obs    Observed
		want   string
	}{
		{name: "ordered: every old replica is removed at once, none created",
			set: testSet(recreateStrategy), obs: Observed{Replicas: okN(3, "a")},
			want: "delete web-0" + why + "delete web-1" + why + "delete web-2" + why},
		{name: "health, minReadySeconds and the policy do not matter",
			set:  testSet(recreateStrategy, parallel, func(s *config.Set) { s.MinReadySeconds = 30 }),
			obs:  Observed{Replicas: []Replica{ok(0, "a"), notReady, exited}},
			want: "delete web-0" + why + "delete web-1" + why + "delete web-2" + why},
		{name: "replicas at the update revision stay, and nothing is created while an old one remains",
			set: testSet(recreateStrategy), obs: Observed{Replicas: []Replica{ok(0, "b"), ok(1, "a")}},
			want: "delete web-1" + why},
		{name: "an old replica out of the range goes too",
			set: testSet(recreateStrategy, replicas(1)), obs: Observed{Replicas: []Replica{ok(0, "b"), ok(1, "a")}},
			want: "delete web-1" + why},
		{name: "an old init container goes too",
			set: testSet(recreateStrategy), obs: Observed{Inits: []InitContainer{initA}},
			want: "delete-init web-0-init-clone: Recreate a -> b\n"},
		{name: "a removal in flight is waited for before anything is created",
			set: testSet(recreateStrategy), obs: Observed{Replicas: []Replica{ok(0, "b"), removing}},
			want: "wait 1 containers of older revisions being removed (Recreate)\n"},
		{name: "once the old ones are gone, ordered creation of the new ones",
			set: testSet(recreateStrategy), obs: Observed{Replicas: okN(1, "b")},
			want: "create web-1 at b: missing\n"},
		{name: "once the old ones are gone, parallel creation of the new ones",
			set:  testSet(recreateStrategy, parallel),
			want: "create web-0 at b: missing\ncreate web-1 at b: missing\ncreate web-2 at b: missing\n"},
		{name: "complete only with every replica at the update revision",
			set: testSet(recreateStrategy), obs: Observed{Replicas: okN(3, "b")},
			want: "complete\n"},
		{name: "paused: nothing removed, and a missing replica takes the current revision",
			set: testSet(recreateStrategy), paused: true, obs: Observed{Replicas: okN(2, "a")},
			want: "create web-2 at a: missing\nheld rollout paused with 2 containers not at b (Recreate)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := MakePlan(Input{Set: c.set, CurrentRevision: "a", UpdateRevision: "b", Paused: c.paused, Observed: c.obs, Now: t0})
			if got := p.String(); got != c.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// checkRecreate is the simulation's safety check under Recreate: nothing is
// made at the update revision while a container of another revision exists,
// no replica at the update revision is removed but to be brought back (it
// exited, was cut off from its network, or left the range), and a complete
// plan acts on nothing.
func checkRecreate(t *rapid.T, w *world, p Plan) {
	old := ""
	for _, r := range w.replicas {
		if r.Revision != w.update {
			old = r.Name
		}
	}
	for _, c := range w.inits {
		if c.Revision != w.update {
			old = c.Name
		}
	}
	start, end := w.set.FirstOrdinal(), w.set.EndOrdinal()
	for _, a := range p.Actions {
		checkInits(t, w, a)
		switch a.Kind {
		case ActCreate, ActCreateInit:
			if old != "" {
				t.Fatalf("%s while %s of an older revision exists:\n%s", a, old, p)
			}
			if a.Revision != w.update {
				t.Fatalf("%s: revision %s, want %s", a, a.Revision, w.update)
			}
		case ActDelete:
			r, ok := w.replicas[a.Ordinal]
			inRange := a.Ordinal >= start && a.Ordinal < end
			if ok && r.Revision == w.update && inRange && r.State != StateExited && !w.cutOff(r) {
				t.Fatalf("%s: a replica at the update revision removed:\n%s", a, p)
			}
		}
	}
	if p.Complete && len(p.Actions) > 0 {
		t.Fatalf("complete plan with actions:\n%s", p)
	}
}
