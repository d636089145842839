package engine

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ostset/ostset/config"
)

// world is a simulated Docker holding one set's containers and volumes.
type world struct {
	set      config.Set
	current  string
	update   string
	replicas map[int]Replica
	volumes  map[int]Volume
	now      time.Time
	nextID   int
	// theirs holds the set's objects that another state directory made.
	theirs Observed
}

func (w *world) observed() Observed {
	var o Observed
	for _, ord := range slices.Sorted(maps.Keys(w.replicas)) {
		o.Replicas = append(o.Replicas, w.replicas[ord])
	}
	for _, ord := range slices.Sorted(maps.Keys(w.volumes)) {
		o.Volumes = append(o.Volumes, w.volumes[ord])
	}
	o.Replicas = append(o.Replicas, w.theirs.Replicas...)
	o.Volumes = append(o.Volumes, w.theirs.Volumes...)
	return Ownership{Self: me}.Classify(w.set.Name, o)
}

// intrude has another state directory make a container or a volume of the set
// at an ordinal this one has nothing at.
func (w *world) intrude(t *rapid.T) {
	ord := rapid.IntRange(0, 8).Draw(t, "intruder")
	name := ReplicaName(w.set.Name, ord)
	if _, mine := w.replicas[ord]; mine || slices.ContainsFunc(w.theirs.Replicas, func(r Replica) bool { return r.Name == name }) {
		return
	}
	if _, mine := w.volumes[ord]; mine || slices.ContainsFunc(w.theirs.Volumes, func(v Volume) bool { return v.Ordinal == ord }) {
		return
	}
	if rapid.Bool().Draw(t, "intruding volume") {
		w.theirs.Volumes = append(w.theirs.Volumes, Volume{Name: "data-" + name, Ordinal: ord, Owner: other})
		return
	}
	w.nextID++
	w.theirs.Replicas = append(w.theirs.Replicas, Replica{ID: fmt.Sprint(w.nextID), Name: name, Ordinal: ord,
		Revision: "theirs", State: StateRunning, Created: w.now, Owner: other})
}

func (w *world) input() Input {
	return Input{Set: w.set, CurrentRevision: w.current, UpdateRevision: w.update, Observed: w.observed(), Now: w.now}
}

// apply carries out the plan's actions; fail decides whether an action fails.
func (w *world) apply(t *rapid.T, p Plan, fail func() bool) {
	for _, a := range p.Actions {
		if fail() {
			continue
		}
		switch a.Kind {
		case ActCreate:
			if _, dup := w.replicas[a.Ordinal]; dup {
				t.Fatalf("two containers for ordinal %d", a.Ordinal)
			}
			w.nextID++
			w.replicas[a.Ordinal] = Replica{ID: fmt.Sprint(w.nextID), Name: a.Name, Ordinal: a.Ordinal, Revision: a.Revision,
				State: StateRunning, Health: HealthStarting, Created: w.now}
			w.volumes[a.Ordinal] = Volume{Name: "data-" + a.Name, Ordinal: a.Ordinal}
		case ActStart:
			r := w.replicas[a.Ordinal]
			r.State, r.Health = StateRunning, HealthStarting
			w.replicas[a.Ordinal] = r
		case ActDelete:
			delete(w.replicas, a.Ordinal)
		case ActDeleteVolume:
			delete(w.volumes, a.Ordinal)
		}
	}
	w.current = p.Status.CurrentRevision
}

// churn moves containers along at random: health checks pass or fail, processes exit.
func (w *world) churn(t *rapid.T, fair bool) {
	for _, ord := range slices.Sorted(maps.Keys(w.replicas)) {
		r := w.replicas[ord]
		if fair {
			if r.State == StateRunning {
				if r.Health != HealthHealthy {
					r.ReadySince = w.now
				}
				r.Health = HealthHealthy
			}
		} else {
			switch rapid.IntRange(0, 9).Draw(t, "churn") {
			case 0, 1, 2, 3:
				if r.Health != HealthHealthy && r.State == StateRunning {
					r.ReadySince = w.now
				}
				r.Health = HealthHealthy
			case 4:
				r.Health = HealthUnhealthy
			case 5:
				r.State = StateExited
			case 6:
				r.State = StateCreated
			}
		}
		w.replicas[ord] = r
	}
	w.now = w.now.Add(time.Second)
}

// checkSafety asserts the StatefulSet guarantees for one plan taken on the world.
func checkSafety(t *rapid.T, w *world, p Plan) {
	if len(w.theirs.Replicas)+len(w.theirs.Volumes) > 0 && (len(p.Actions) > 0 || p.Complete) {
		t.Fatalf("a plan for a set another state directory holds objects of:\n%s", p)
	}
	s := w.set
	start, end := s.FirstOrdinal(), s.EndOrdinal()
	ordered := s.PodManagementPolicy == config.OrderedReady
	steps := 0
	updateDeletes := 0
	for _, a := range p.Actions {
		if a.Kind != ActDeleteVolume {
			steps++
		}
		r, exists := w.replicas[a.Ordinal]
		switch a.Kind {
		case ActCreate:
			if exists {
				t.Fatalf("%s: create of an existing replica", a)
			}
			if ordered {
				for ord := start; ord < a.Ordinal; ord++ {
					if lr, ok := w.replicas[ord]; !ok || !lr.isAvailable(s, w.now) {
						t.Fatalf("%s while %s is not available", a, ReplicaName(s.Name, ord))
					}
				}
			}
			want := w.update
			if s.UpdateStrategy.Type == config.RollingUpdate && a.Ordinal < s.Partition() {
				want = w.current
			}
			if a.Revision != want {
				t.Fatalf("%s: revision %s, want %s", a, a.Revision, want)
			}
		case ActDelete:
			if !exists {
				t.Fatalf("%s: delete of a missing replica", a)
			}
			if a.Ordinal < start || a.Ordinal >= end {
				if ordered {
					for ord := range w.replicas {
						if ord > a.Ordinal && (ord < start || ord >= end) {
							t.Fatalf("%s before the higher %s", a, ReplicaName(s.Name, ord))
						}
					}
					for ord := start; ord < end; ord++ {
						if lr, ok := w.replicas[ord]; !ok || !lr.isAvailable(s, w.now) {
							t.Fatalf("%s while %s is not available", a, ReplicaName(s.Name, ord))
						}
					}
				}
				continue
			}
			if r.State == StateExited {
				continue
			}
			if s.UpdateStrategy.Type == config.OnDelete {
				t.Fatalf("%s under OnDelete", a)
			}
			if a.Ordinal < s.Partition() {
				t.Fatalf("%s below the partition %d", a, s.Partition())
			}
			steps-- // update deletes are bounded by maxUnavailable instead
			if r.isAvailable(s, w.now) {
				updateDeletes++
			}
		case ActDeleteVolume:
			if s.PersistentVolumeClaimRetentionPolicy.WhenScaled != config.Delete {
				t.Fatalf("%s under Retain", a)
			}
			if exists || (a.Ordinal >= start && a.Ordinal < end) {
				t.Fatalf("%s while its ordinal is in use", a)
			}
		}
	}
	if ordered && (steps > 1 || steps == 1 && updateDeletes > 0) {
		t.Fatalf("OrderedReady plan with %d replica steps:\n%s", steps, p)
	}
	if updateDeletes > 0 {
		unavailable := 0
		for ord := start; ord < end; ord++ {
			if r, ok := w.replicas[ord]; !ok || !r.isAvailable(s, w.now) {
				unavailable++
			}
		}
		if unavailable+updateDeletes > s.MaxUnavailableCount() {
			t.Fatalf("update makes %d unavailable, maxUnavailable %d:\n%s", unavailable+updateDeletes, s.MaxUnavailableCount(), p)
		}
	}
	if p.Complete && len(p.Actions) > 0 {
		t.Fatalf("complete plan with actions:\n%s", p)
	}
}

func (r Replica) isAvailable(s config.Set, now time.Time) bool {
	return (&planner{in: Input{Now: now}, minReady: time.Duration(s.MinReadySeconds) * time.Second}).available(r)
}

func drawSet(t *rapid.T) config.Set {
	s := config.Set{Name: "web", Replicas: ptr(rapid.IntRange(0, 6).Draw(t, "replicas")), Template: config.Template{Image: "img"}}
	s.PodManagementPolicy = rapid.SampledFrom([]string{config.OrderedReady, config.Parallel}).Draw(t, "policy")
	s.UpdateStrategy.Type = rapid.SampledFrom([]string{config.RollingUpdate, config.OnDelete}).Draw(t, "strategy")
	s.UpdateStrategy.RollingUpdate.Partition = rapid.IntRange(0, 4).Draw(t, "partition")
	s.UpdateStrategy.RollingUpdate.MaxUnavailable = config.IntOrPercent(rapid.SampledFrom([]string{"1", "2", "50%"}).Draw(t, "maxUnavailable"))
	s.Ordinals.Start = rapid.IntRange(0, 2).Draw(t, "start")
	s.MinReadySeconds = rapid.IntRange(0, 2).Draw(t, "minReady")
	s.PersistentVolumeClaimRetentionPolicy.WhenScaled = rapid.SampledFrom([]string{config.Retain, config.Delete}).Draw(t, "whenScaled")
	s.ApplyDefaults()
	return s
}

// TestSimulation runs random sets through random container behaviour, injected
// failures, spec changes and another state directory's objects, checking safety
// after every step; then it lets the world behave fairly (the other state
// directory's objects gone) and checks that the set converges within a bound.
func TestSimulation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := &world{set: drawSet(t), current: "r0", update: "r0", replicas: map[int]Replica{}, volumes: map[int]Volume{}, now: t0}
		revs := 0
		for range rapid.IntRange(0, 60).Draw(t, "steps") {
			switch rapid.IntRange(0, 19).Draw(t, "event") {
			case 0:
				w.set.Replicas = ptr(rapid.IntRange(0, 6).Draw(t, "scale"))
			case 1:
				revs++
				w.update = fmt.Sprintf("r%d", revs)
			case 2:
				w.set.UpdateStrategy.RollingUpdate.Partition = rapid.IntRange(0, 4).Draw(t, "repartition")
			case 3:
				w.set.Ordinals.Start = rapid.IntRange(0, 2).Draw(t, "restart")
			case 4:
				w.intrude(t)
			case 5:
				w.theirs = Observed{} // the other state directory removed its objects
			}
			p := MakePlan(w.input())
			checkSafety(t, w, p)
			w.apply(t, p, func() bool { return rapid.IntRange(0, 9).Draw(t, "fail") == 0 })
			w.churn(t, false)
		}
		w.theirs = Observed{}
		bound := 4*(len(w.replicas)+w.set.DesiredReplicas()) + 10
		for i := 0; ; i++ {
			p := MakePlan(w.input())
			checkSafety(t, w, p)
			if p.Complete {
				if again := MakePlan(w.input()); len(again.Actions) > 0 {
					t.Fatalf("converged state plans:\n%s", again)
				}
				return
			}
			if i == bound {
				t.Fatalf("not converged after %d fair steps; last plan:\n%s", bound, p)
			}
			w.apply(t, p, func() bool { return false })
			w.churn(t, true)
		}
	})
}
