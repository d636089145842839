package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// testSet is web with 3 replicas, OrderedReady, RollingUpdate, defaults applied.
func testSet(mods ...func(*config.Set)) config.Set {
	s := config.Set{Name: "web", Replicas: ptr(3), Template: config.Template{Image: "img"}}
	s.ApplyDefaults()
	for _, m := range mods {
		m(&s)
	}
	return s
}

func replicas(n int) func(*config.Set) { return func(s *config.Set) { s.Replicas = ptr(n) } }
func parallel(s *config.Set)           { s.PodManagementPolicy = config.Parallel }
func onDelete(s *config.Set)           { s.UpdateStrategy.Type = config.OnDelete }
func partition(n int) func(*config.Set) {
	return func(s *config.Set) { s.UpdateStrategy.RollingUpdate.Partition = n }
}
func maxUnavailable(v string) func(*config.Set) {
	return func(s *config.Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = config.IntOrPercent(v) }
}

// rep is a replica; health "" means no healthcheck.
func rep(ord int, rev, state, health string) Replica {
	name := ReplicaName("web", ord)
	return Replica{ID: "id-" + name, Name: name, Ordinal: ord, Revision: rev, State: state, Health: health, Created: t0.Add(-time.Minute)}
}

func ok(ord int, rev string) Replica { return rep(ord, rev, StateRunning, HealthHealthy) }

func detachedRep(ord int, rev string) Replica {
	r := ok(ord, rev)
	r.Networks = []string{}
	return r
}

// on is r attached to the named networks alone.
func on(r Replica, networks ...string) Replica {
	r.Networks = networks
	return r
}

// twoNetworks gives the set a second network, back.
func twoNetworks(s *config.Set) { s.Networks = []config.NetworkAttachment{{Name: "back"}} }

// onTwo: revision b runs on the set's network and back.
var onTwo = map[string][]string{"b": {"ostset", "back"}}

// movedNetwork: revision a ran on network old, b runs on the set's network.
var movedNetwork = map[string][]string{"a": {"old"}, "b": {"ostset"}}

func okN(n int, rev string) []Replica {
	var rs []Replica
	for i := range n {
		rs = append(rs, ok(i, rev))
	}
	return rs
}

func TestPlan(t *testing.T) {
	cases := []struct {
		name    string
		set     config.Set
		cur     string // current revision; update is always "b" unless cur is "b"
		paused  bool
		backoff map[int]Backoff
		nets    map[string][]string // networks by revision
		obs     Observed
		// condemned: the ordinals a scale-down condemned under whenScaled: Delete
		condemned []int
		refused   map[int]Refusal
		want      string
	}{
		{name: "ordered scale up creates only the lowest missing ordinal",
			set: testSet(), cur: "b",
			want: "create web-0 at b: missing\n"},
		{name: "ordered scale up waits for the lower ordinal to be ready",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{rep(0, "b", StateRunning, HealthStarting)}},
			want: "wait web-0 not ready (health: starting)\n"},
		{name: "ordered scale up goes on once the lower ordinal is ready",
			set: testSet(), cur: "b", obs: Observed{Replicas: okN(1, "b")},
			want: "create web-1 at b: missing\n"},
		{name: "no healthcheck: running means ready",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{rep(0, "b", StateRunning, HealthNone)}},
			want: "create web-1 at b: missing\n"},
		{name: "parallel creates every missing ordinal at once",
			set: testSet(parallel), cur: "b",
			want: "create web-0 at b: missing\ncreate web-1 at b: missing\ncreate web-2 at b: missing\n"},
		{name: "parallel does not wait for unready replicas",
			set: testSet(parallel), cur: "b", obs: Observed{Replicas: []Replica{rep(0, "b", StateRunning, HealthStarting)}},
			want: "create web-1 at b: missing\ncreate web-2 at b: missing\nwait web-0 not ready (health: starting)\n"},
		{name: "a replica detached from the set's network is recreated on it",
			set: testSet(), cur: "b", obs: Observed{Replicas: append(okN(1, "b"), detachedRep(1, "b"), ok(2, "b"))},
			want: "delete web-1: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n"},
		{name: "ordered: every detached replica is recreated at once, whatever the order",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{detachedRep(0, "b"), detachedRep(1, "b"), detachedRep(2, "b")}},
			want: "delete web-0: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n" +
				"delete web-1: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n" +
				"delete web-2: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n"},
		{name: "parallel recreates every detached replica at once",
			set: testSet(parallel), cur: "b", obs: Observed{Replicas: []Replica{detachedRep(0, "b"), ok(1, "b"), detachedRep(2, "b")}},
			want: "delete web-0: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n" +
				"delete web-2: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n"},
		{name: "a replica that lost another network of its revision is connected to it again",
			set: testSet(twoNetworks), cur: "b", nets: onTwo,
			obs:  Observed{Replicas: []Replica{on(ok(0, "b"), "ostset", "back"), on(ok(1, "b"), "ostset"), on(ok(2, "b"), "ostset", "back")}},
			want: "connect web-1: not attached to network back (removed, or disconnected by hand)\n"},
		{name: "a replica that lost the first network of its revision is recreated, whatever else it is on",
			set: testSet(twoNetworks), cur: "b", nets: onTwo,
			obs:  Observed{Replicas: []Replica{on(ok(0, "b"), "back"), on(ok(1, "b"), "ostset", "back"), on(ok(2, "b"), "ostset", "back")}},
			want: "delete web-0: not attached to network ostset (removed, or disconnected by hand); it will be recreated on it\n"},
		{name: "a replica on every network of its revision is not detached",
			set: testSet(twoNetworks), cur: "b", nets: onTwo,
			obs:  Observed{Replicas: []Replica{on(ok(0, "b"), "back", "ostset"), on(ok(1, "b"), "ostset", "back"), on(ok(2, "b"), "ostset", "back", "other")}},
			want: "complete\n"},
		{name: "a replica on the network of its own revision is not detached",
			set: testSet(replicas(2), partition(2)), cur: "a", nets: movedNetwork,
			obs:  Observed{Replicas: []Replica{on(ok(0, "a"), "old"), on(ok(1, "a"), "old")}},
			want: "complete\n"},
		{name: "a network change rolls from the highest ordinal",
			set: testSet(), cur: "a", nets: movedNetwork,
			obs:  Observed{Replicas: []Replica{on(ok(0, "a"), "old"), on(ok(1, "a"), "old"), on(ok(2, "a"), "old")}},
			want: "delete web-2: update a -> b\n"},
		{name: "a network change rolls on down once the one above is on the new network",
			set: testSet(), cur: "a", nets: movedNetwork,
			obs:  Observed{Replicas: []Replica{on(ok(0, "a"), "old"), on(ok(1, "a"), "old"), on(ok(2, "b"), "ostset")}},
			want: "delete web-1: update a -> b\n"},
		{name: "a network change replaces nothing under OnDelete",
			set: testSet(onDelete), cur: "a", nets: movedNetwork,
			obs:  Observed{Replicas: []Replica{on(ok(0, "a"), "old"), on(ok(1, "a"), "old"), on(ok(2, "a"), "old")}},
			want: "complete\n"},
		{name: "below the partition a replica cut off from its revision's network is recreated on it",
			set: testSet(replicas(2), partition(2)), cur: "a", nets: movedNetwork,
			obs:  Observed{Replicas: []Replica{detachedRep(0, "a"), on(ok(1, "a"), "old")}},
			want: "delete web-0: not attached to network old (removed, or disconnected by hand); it will be recreated on it\n"},
		{name: "ordered scale down removes the highest ordinal first, one at a time",
			set: testSet(), cur: "b", obs: Observed{Replicas: okN(5, "b")},
			want: "delete web-4: scale down\n"},
		{name: "ordered scale down halts while a remaining replica is unhealthy",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateRunning, HealthUnhealthy), ok(2, "b"), ok(3, "b")}},
			want: "wait web-1 not ready (health: unhealthy)\n"},
		{name: "an unhealthy condemned replica is still removed",
			set: testSet(), cur: "b", obs: Observed{Replicas: append(okN(3, "b"), rep(3, "b", StateRunning, HealthUnhealthy))},
			want: "delete web-3: scale down\n"},
		{name: "parallel scale down removes every condemned replica",
			set: testSet(parallel), cur: "b", obs: Observed{Replicas: okN(5, "b")},
			want: "delete web-4: scale down\ndelete web-3: scale down\n"},
		{name: "rolling update starts at the highest ordinal",
			set: testSet(), cur: "a", obs: Observed{Replicas: okN(3, "a")},
			want: "delete web-2: update a -> b\n"},
		{name: "a replaced ordinal is recreated at the update revision",
			set: testSet(), cur: "a", obs: Observed{Replicas: okN(2, "a")},
			want: "create web-2 at b: missing\n"},
		{name: "rolling update waits for the updated replica to be ready",
			set: testSet(), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), rep(2, "b", StateRunning, HealthStarting)}},
			want: "wait web-2 not ready (health: starting)\n"},
		{name: "rolling update goes down once the one above is ready",
			set: testSet(), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), ok(2, "b")}},
			want: "delete web-1: update a -> b\n"},
		{name: "partition: ordinals below it are not updated and the rollout completes",
			set: testSet(partition(2)), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), ok(2, "b")}},
			want: "complete\n"},
		{name: "partition: a recreated ordinal below it comes back at the current revision",
			set: testSet(partition(2)), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(2, "b")}},
			want: "create web-1 at a: missing\n"},
		{name: "partition above replicas updates nothing",
			set: testSet(partition(5)), cur: "a", obs: Observed{Replicas: okN(3, "a")},
			want: "complete\n"},
		{name: "maxUnavailable 2 replaces two at a time from the top",
			set: testSet(replicas(4), maxUnavailable("2")), cur: "a", obs: Observed{Replicas: okN(4, "a")},
			want: "delete web-3: update a -> b\ndelete web-2: update a -> b\n"},
		{name: "maxUnavailable counts replicas already unavailable",
			set: testSet(replicas(4), maxUnavailable("2"), parallel), cur: "a",
			obs:  Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), ok(2, "a"), rep(3, "b", StateRunning, HealthStarting)}},
			want: "delete web-2: update a -> b\nwait web-3 not ready (health: starting)\n"},
		{name: "maxUnavailable reached: wait",
			set: testSet(replicas(4), maxUnavailable("1"), parallel), cur: "a",
			obs:  Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), ok(2, "a"), rep(3, "b", StateRunning, HealthStarting)}},
			want: "wait web-3 not ready (health: starting)\nwait 1 replicas unavailable (maxUnavailable 1)\n"},
		{name: "OnDelete never replaces on its own",
			set: testSet(onDelete), cur: "a", obs: Observed{Replicas: okN(3, "a")},
			want: "complete\n"},
		{name: "OnDelete: a removed replica comes back at the update revision",
			set: testSet(onDelete, partition(2)), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(2, "a")}},
			want: "create web-1 at b: missing\n"},
		{name: "an exited replica is removed to be recreated",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateExited, HealthNone), ok(2, "b")}},
			want: "delete web-1: exited; it will be recreated\n"},
		{name: "an exited replica in crash-loop back-off is waited for",
			set: testSet(), cur: "b", backoff: map[int]Backoff{1: {After: t0.Add(20 * time.Second)}},
			obs:  Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateExited, HealthNone), ok(2, "b")}},
			want: "wait web-1 exited again; recreating it in 20s (crash-loop back-off)\n"},
		{name: "a crash-loop back-off holds only a replica made at the revision it was earned at",
			set: testSet(), cur: "b", backoff: map[int]Backoff{1: {After: t0.Add(20 * time.Second), Revision: "b"}},
			obs:  Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateExited, HealthNone), ok(2, "b")}},
			want: "wait web-1 exited again; recreating it in 20s (crash-loop back-off)\n"},
		{name: "a fixed template is not held back by the back-off of the broken revision",
			set: testSet(), cur: "a", backoff: map[int]Backoff{2: {After: t0.Add(4 * time.Minute), Revision: "x"}},
			obs:  Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), rep(2, "x", StateExited, HealthNone)}},
			want: "delete web-2: exited; it will be recreated\n"},
		{name: "ordered: replicas that all exited are restarted at once, not one by one",
			set: testSet(), cur: "b",
			obs:  Observed{Replicas: []Replica{rep(0, "b", StateExited, HealthNone), rep(1, "b", StateExited, HealthNone), rep(2, "b", StateExited, HealthNone)}},
			want: "delete web-0: exited; it will be recreated\ndelete web-1: exited; it will be recreated\ndelete web-2: exited; it will be recreated\n"},
		{name: "ordered: an exited replica is restarted while a lower one is not ready, a missing one waits",
			set: testSet(replicas(4)), cur: "b",
			obs:  Observed{Replicas: []Replica{rep(0, "b", StateRunning, HealthStarting), rep(1, "b", StateExited, HealthNone), rep(3, "b", StateExited, HealthNone)}},
			want: "delete web-1: exited; it will be recreated\ndelete web-3: exited; it will be recreated\nwait web-0 not ready (health: starting)\n"},
		{name: "ordered: restarts above a lower one in back-off each wait for their own",
			set: testSet(), cur: "b", backoff: map[int]Backoff{0: {After: t0.Add(20 * time.Second)}, 2: {After: t0.Add(40 * time.Second)}},
			obs:  Observed{Replicas: []Replica{rep(0, "b", StateExited, HealthNone), rep(1, "b", StateExited, HealthNone), rep(2, "b", StateExited, HealthNone)}},
			want: "delete web-1: exited; it will be recreated\nwait web-0 exited again; recreating it in 20s (crash-loop back-off)\nwait web-2 exited again; recreating it in 40s (crash-loop back-off)\n"},
		{name: "ordered: the successor of a restarted replica is created out of order",
			set: testSet(), cur: "b", backoff: map[int]Backoff{2: {Restarting: true}},
			obs:  Observed{Replicas: []Replica{rep(0, "b", StateRunning, HealthStarting), ok(1, "b")}},
			want: "create web-2 at b: removed to be recreated (a restart)\nwait web-0 not ready (health: starting)\n"},
		{name: "ordered: scale, updates and condemned replicas still wait for an exited replica's restart",
			set: testSet(replicas(2)), cur: "a",
			obs:  Observed{Replicas: []Replica{rep(0, "a", StateExited, HealthNone), ok(1, "a"), ok(2, "a")}},
			want: "delete web-0: exited; it will be recreated\n"},
		{name: "parallel: a replica the engine refused waits for its retry, the others go on",
			set: testSet(parallel), cur: "b", refused: map[int]Refusal{1: {Reason: "port is already allocated", RetryAt: t0.Add(time.Minute)}},
			obs:  Observed{Replicas: []Replica{rep(0, "b", StateExited, HealthNone)}},
			want: "delete web-0: exited; it will be recreated\ncreate web-2 at b: missing\nwait web-1 cannot start (port is already allocated); trying again in 1m0s\n"},
		{name: "a replica the engine refused is tried again once its retry is due",
			set: testSet(), cur: "b", refused: map[int]Refusal{1: {Reason: "port is already allocated", RetryAt: t0}},
			obs:  Observed{Replicas: okN(1, "b")},
			want: "create web-1 at b: missing\n"},
		{name: "a created replica the engine refused to start waits for its retry",
			set: testSet(), cur: "b", refused: map[int]Refusal{1: {Reason: "port is already allocated", RetryAt: t0.Add(time.Second)}},
			obs:  Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateCreated, HealthNone)}},
			want: "wait web-1 cannot start (port is already allocated); trying again in 1s\n"},
		{name: "a restarting replica is waited for, not removed",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateRestarting, HealthNone), ok(2, "b")}},
			want: "wait web-1 not ready (restarting)\n"},
		{name: "a created but not started replica is started",
			set: testSet(), cur: "b", obs: Observed{Replicas: []Replica{ok(0, "b"), rep(1, "b", StateCreated, HealthNone)}},
			want: "start web-1: created but not started\n"},
		{name: "a foreign container holding a replica name halts an ordered set",
			set: testSet(), cur: "b", obs: Observed{Replicas: okN(1, "b"), Foreign: []Foreign{{ID: "f00", Name: "web-1"}}},
			want: "wait web-1: the name is held by container f00, which set web does not own\n"},
		{name: "a foreign container is worked around in parallel",
			set: testSet(parallel), cur: "b", obs: Observed{Foreign: []Foreign{{ID: "f00", Name: "web-1"}}},
			want: "create web-0 at b: missing\ncreate web-2 at b: missing\nwait web-1: the name is held by container f00, which set web does not own\n"},
		{name: "a not-ready replica at an abandoned revision is replaced at once",
			set: testSet(), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), rep(2, "x", StateRunning, HealthUnhealthy)}},
			want: "delete web-2: not ready at x; replacing with b\n"},
		{name: "first release that never became available: its not-ready replica is replaced with the fix",
			set: testSet(), cur: "", obs: Observed{Replicas: []Replica{rep(0, "x", StateRunning, HealthUnhealthy)}},
			want: "delete web-0: not ready at x; replacing with b\n"},
		{name: "a not-ready replica at the current revision is waited for during an update",
			set: testSet(), cur: "a", obs: Observed{Replicas: []Replica{rep(0, "a", StateRunning, HealthUnhealthy), ok(1, "a"), ok(2, "b")}},
			want: "wait web-0 not ready (health: unhealthy)\n"},
		{name: "parallel: one action per ordinal even when it is both exited and outdated",
			set: testSet(parallel, maxUnavailable("2")), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), rep(2, "a", StateExited, HealthNone)}},
			want: "delete web-2: exited; it will be recreated\ndelete web-1: update a -> b\n"},
		{name: "below the partition a not-ready replica is waited for",
			set: testSet(partition(2)), cur: "a", obs: Observed{Replicas: []Replica{ok(0, "a"), rep(1, "b", StateRunning, HealthUnhealthy), ok(2, "b")}},
			want: "wait web-1 not ready (health: unhealthy)\n"},
		{name: "paused: nothing replaced, scaling goes on",
			set: testSet(replicas(4)), cur: "a", paused: true, obs: Observed{Replicas: okN(3, "a")},
			want: "create web-3 at b: missing\n"},
		{name: "paused: the update waits",
			set: testSet(), cur: "a", paused: true, obs: Observed{Replicas: okN(3, "a")},
			want: "held rollout paused with 3 replicas not at b\ncomplete\n"},
		{name: "whenScaled Delete removes volumes of removed ordinals",
			set: testSet(func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete }), cur: "b",
			obs:       Observed{Replicas: okN(3, "b"), Volumes: []Volume{{Name: "data-web-2", Ordinal: 2}, {Name: "data-web-3", Ordinal: 3}}},
			condemned: []int{3},
			want:      "delete-volume data-web-3: whenScaled: Delete\n"},
		{name: "whenScaled Delete leaves the volumes no scale-down condemned (kept by down, or by a scale-down under Retain)",
			set: testSet(func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete }), cur: "b",
			obs: Observed{Replicas: okN(3, "b"), Volumes: []Volume{{Name: "data-web-3", Ordinal: 3}, {Name: "data-web-4", Ordinal: 4},
				{Name: "data-web-5", Ordinal: 5}}},
			condemned: []int{4},
			want:      "delete-volume data-web-4: whenScaled: Delete\n"},
		{name: "whenScaled Delete waits for the container to be gone",
			set: testSet(func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete }), cur: "b",
			obs:  Observed{Replicas: okN(4, "b"), Volumes: []Volume{{Name: "data-web-3", Ordinal: 3}}},
			want: "delete web-3: scale down\n"},
		{name: "Retain never removes a volume",
			set: testSet(), cur: "b", obs: Observed{Replicas: okN(3, "b"), Volumes: []Volume{{Name: "data-web-3", Ordinal: 3}}},
			want: "complete\n"},
		{name: "ordinals.start moves the set: new ordinals first, then the old removed",
			set: testSet(replicas(2), func(s *config.Set) { s.Ordinals.Start = 1 }), cur: "b", obs: Observed{Replicas: okN(2, "b")},
			want: "create web-2 at b: missing\n"},
		{name: "ordinals.start: old ordinals go once the new range is ready",
			set: testSet(replicas(2), func(s *config.Set) { s.Ordinals.Start = 1 }), cur: "b", obs: Observed{Replicas: okN(3, "b")},
			want: "delete web-0: scale down\n"},
		{name: "converged plans nothing",
			set: testSet(), cur: "b", obs: Observed{Replicas: okN(3, "b")},
			want: "complete\n"},
		{name: "zero replicas with nothing left is complete",
			set: testSet(replicas(0)), cur: "b",
			want: "complete\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MakePlan(Input{Set: c.set, CurrentRevision: c.cur, UpdateRevision: "b", Paused: c.paused, Observed: c.obs, Now: t0, Backoff: c.backoff, Networks: c.nets,
				CondemnedVolumes: c.condemned, Refused: c.refused}).String()
			if got != c.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestPlanMinReadySeconds(t *testing.T) {
	set := testSet(func(s *config.Set) { s.MinReadySeconds = 5 })
	r := ok(0, "b")
	r.ReadySince = t0.Add(-2 * time.Second)
	p := MakePlan(Input{Set: set, CurrentRevision: "b", UpdateRevision: "b", Observed: Observed{Replicas: []Replica{r}}, Now: t0})
	if want := "wait web-0 not available yet (minReadySeconds 5)\n"; p.String() != want {
		t.Fatalf("plan:\n%s\nwant:\n%s", p, want)
	}
	if want := t0.Add(3 * time.Second); !p.RequeueAt.Equal(want) {
		t.Errorf("RequeueAt = %v, want %v", p.RequeueAt, want)
	}
	r.ReadySince = t0.Add(-5 * time.Second)
	p = MakePlan(Input{Set: set, CurrentRevision: "b", UpdateRevision: "b", Observed: Observed{Replicas: []Replica{r}}, Now: t0})
	if !strings.HasPrefix(p.String(), "create web-1") {
		t.Errorf("after minReadySeconds: plan:\n%s", p)
	}
}

func TestStatusRevisions(t *testing.T) {
	in := Input{Set: testSet(), CurrentRevision: "a", UpdateRevision: "b", Now: t0,
		Observed: Observed{Replicas: []Replica{ok(0, "a"), ok(1, "a"), rep(2, "b", StateRunning, HealthStarting)}}}
	s := MakePlan(in).Status
	if s.Replicas != 3 || s.CurrentReplicas != 2 || s.UpdatedReplicas != 1 || s.ReadyReplicas != 2 || s.AvailableReplicas != 2 {
		t.Errorf("counts: %+v", s)
	}
	if s.CurrentRevision != "a" || s.UpdateRevision != "b" {
		t.Errorf("in progress: current %s update %s, want a b", s.CurrentRevision, s.UpdateRevision)
	}
	in.Observed.Replicas = okN(3, "b")
	// When the current revision switches, the updated replicas are the current ones.
	if s := MakePlan(in).Status; s.CurrentRevision != "b" || s.CurrentReplicas != 3 || s.UpdatedReplicas != 3 {
		t.Errorf("all updated and ready: current %s, %d current, %d updated; want b, 3, 3", s.CurrentRevision, s.CurrentReplicas, s.UpdatedReplicas)
	}
	in.Observed.Replicas = []Replica{ok(0, "a"), ok(1, "b"), ok(2, "b")}
	in.Set = testSet(partition(1))
	if s := MakePlan(in).Status; s.CurrentRevision != "a" {
		t.Errorf("partitioned: current %s, want a", s.CurrentRevision)
	}
}
