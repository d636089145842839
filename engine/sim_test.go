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
}

func (w *world) observed() Observed {
	var o Observed
	for _, ord := range slices.Sorted(maps.Keys(w.replicas)) {
		o.Replicas = append(o.Replicas, w.replicas[ord])
	}
	for _, ord := range slices.Sorted(maps.Keys(w.volumes)) {
		o.Volumes = append(o.Volumes, w.volumes[ord])
	}
	return o
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
	in := w.input()
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
	_ = in
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
// failures and spec changes, checking safety after every step; then it lets the
// world behave fairly and checks that the set converges within a bound.
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
			}
			p := MakePlan(w.input())
			checkSafety(t, w, p)
			w.apply(t, p, func() bool { return rapid.IntRange(0, 9).Draw(t, "fail") == 0 })
			w.churn(t, false)
		}
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
