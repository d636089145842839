//go:build integration

package docker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

func TestPing(t *testing.T) {
	if err := rt.Ping(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

func TestPingUnreachable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/nothing.sock")
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	err = r.Ping(testCtx(t))
	mustContain(t, err, "unreachable", "nothing.sock")
	t.Log(err)
	_, err = r.Watch(testCtx(t), "x")
	mustContain(t, err, "watch set x", "unreachable")
}

func TestEnsureImageLocal(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	for _, policy := range []string{config.PullNever, config.PullIfNotPresent} {
		id, err := rt.EnsureImage(ctx, testImage, policy, nil)
		if err != nil || id != imageID {
			t.Fatalf("EnsureImage(%s, %s) = %q, %v; want %s", testImage, policy, id, err, imageID)
		}
	}
	_, err := rt.EnsureImage(ctx, "ostset-dockertest/absent:1", config.PullNever, nil)
	mustContain(t, err, "ostset-dockertest/absent:1", "not present locally", "imagePullPolicy is Never")
	if ie := (*engine.ImageError)(nil); !errors.As(err, &ie) {
		t.Errorf("a missing image under Never is %T, want *engine.ImageError", err)
	}
	// Not a reference at all: the set's fault too.
	_, err = rt.EnsureImage(ctx, "Ostset/Upper:1", config.PullIfNotPresent, nil)
	mustContain(t, err, "Ostset/Upper:1", "invalid reference format")
	if ie := (*engine.ImageError)(nil); !errors.As(err, &ie) {
		t.Errorf("an invalid reference is %T, want *engine.ImageError", err)
	}
}

func TestObserveClassification(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)

	healthy := replicaSpec(set, 0)
	healthy.Healthcheck = &plan.Healthcheck{Test: []string{"CMD", "/app", "health"}, Interval: 300 * time.Millisecond, Timeout: time.Second, Retries: 3}
	vol := volumeFor(&healthy)
	failing := replicaSpec(set, 1)
	failing.Healthcheck = &plan.Healthcheck{Test: []string{"CMD", "/app", "fail"}, Interval: 300 * time.Millisecond, Timeout: time.Second, Retries: 1}
	plain := replicaSpec(set, 2) // no healthcheck: the image has none
	for _, s := range []plan.ReplicaSpec{healthy, failing, plain} {
		if _, err := rt.CreateReplica(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// Only the set label: the ordinal comes from the name.
	rawContainer(t, ctx, set, set+"-7", map[string]string{plan.LabelSet: set}, false)
	// Named like replicas but not the set's: foreign (owned by another set, or by nobody).
	rawContainer(t, ctx, set, set+"-5", map[string]string{plan.LabelSet: set + "-other"}, false)
	rawContainer(t, ctx, set, set+"-6", nil, false)
	// Not replica names.
	rawContainer(t, ctx, set, set+"-05", nil, false)
	rawContainer(t, ctx, set, set+"-x", nil, false)
	rawContainer(t, ctx, set, set+"-0-1", nil, false)

	var obs plan.Observed
	waitFor(t, 30*time.Second, "replica 0 healthy and 1 unhealthy", func() bool {
		var err error
		obs, err = rt.Observe(ctx, set, engine.ObserveOptions{Timings: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(obs.Replicas) == 4 && obs.Replicas[0].Health == plan.HealthHealthy && obs.Replicas[1].Health == plan.HealthUnhealthy
	})

	want := []struct {
		ord           int
		state, health string
		ready         bool
	}{
		{0, plan.StateRunning, plan.HealthHealthy, true},
		{1, plan.StateRunning, plan.HealthUnhealthy, false},
		{2, plan.StateRunning, plan.HealthNone, true},
		{7, plan.StateCreated, plan.HealthNone, false},
	}
	for i, w := range want {
		got := obs.Replicas[i]
		if got.Ordinal != w.ord || got.Name != plan.ReplicaName(set, w.ord) || got.State != w.state || got.Health != w.health {
			t.Errorf("replica %d = %+v, want ordinal %d state %s health %q", i, got, w.ord, w.state, w.health)
		}
		if got.Created.IsZero() || time.Since(got.Created) > time.Minute {
			t.Errorf("replica %s: Created = %v", got.Name, got.Created)
		}
		if w.ord < 3 && got.Revision != set+"-abc123" {
			t.Errorf("replica %s: revision %q", got.Name, got.Revision)
		}
		if got.ReadySince.IsZero() == w.ready {
			t.Errorf("replica %s: ReadySince = %v, want set: %v", got.Name, got.ReadySince, w.ready)
		}
		if w.ready {
			checkReadySince(t, ctx, got)
		}
	}
	wantForeign := []plan.Foreign{{Name: set + "-5", Owner: set + "-other"}, {Name: set + "-6"}}
	if len(obs.Foreign) != len(wantForeign) {
		t.Fatalf("foreign = %+v, want %+v", obs.Foreign, wantForeign)
	}
	for i, w := range wantForeign {
		if got := obs.Foreign[i]; got.Name != w.Name || got.Owner != w.Owner || got.ID == "" {
			t.Errorf("foreign %d = %+v, want %+v", i, got, w)
		}
	}
	if len(obs.Volumes) != 1 || obs.Volumes[0].Name != vol || obs.Volumes[0].Claim != "data" || obs.Volumes[0].Ordinal != 0 ||
		obs.Volumes[0].Created.IsZero() {
		t.Errorf("volumes = %+v, want %s (claim data, ordinal 0, created set)", obs.Volumes, vol)
	}

	// Without timings nothing is inspected.
	quick, err := rt.Observe(ctx, set, engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range quick.Replicas {
		if !r.ReadySince.IsZero() {
			t.Errorf("%s: ReadySince %v without timings", r.Name, r.ReadySince)
		}
	}
}

// checkReadySince: never before StartedAt, never in the future; without a
// healthcheck exactly StartedAt; with one, after the first probe could pass.
func checkReadySince(t *testing.T, ctx context.Context, r plan.Replica) {
	t.Helper()
	c := inspect(t, ctx, r.ID)
	started, err := time.Parse(time.RFC3339Nano, c.State.StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case r.ReadySince.Before(started) || r.ReadySince.After(time.Now()):
		t.Errorf("%s: ReadySince %v outside [StartedAt %v, now]", r.Name, r.ReadySince, started)
	case r.Health == plan.HealthNone && !r.ReadySince.Equal(started):
		t.Errorf("%s: ReadySince %v, want StartedAt %v", r.Name, r.ReadySince, started)
	case r.Health == plan.HealthHealthy && !r.ReadySince.After(started):
		t.Errorf("%s: ReadySince %v, want after StartedAt %v", r.Name, r.ReadySince, started)
	}
	t.Logf("%s: started %s, ready %s later", r.Name, started.Format(time.RFC3339Nano), r.ReadySince.Sub(started))
}

func TestNetworkEnsureAndRemove(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	name := set + "-net"
	// A network whose name contains name: Docker's name filter returns it too.
	longer, err := rt.cli.NetworkCreate(ctx, name+"-longer", client.NetworkCreateOptions{Driver: "bridge"})
	if err != nil {
		t.Fatal(err)
	}
	id1, err := rt.EnsureNetwork(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	id2, err := rt.EnsureNetwork(ctx, name, nil)
	if err != nil || id2 != id1 || id1 == longer.ID {
		t.Fatalf("EnsureNetwork twice: %s then %s, %v (the longer name is %s)", id1, id2, err, longer.ID)
	}
	if found, _ := rt.networksNamed(ctx, name); len(found) != 1 || found[0].Labels[plan.LabelManaged] != "true" || found[0].Driver != "bridge" {
		t.Fatalf("networks named %s: %+v", name, found)
	}

	// Docker at 1.41 happily creates a second network of the same name.
	dup := set + "-dup"
	var dupIDs []string
	for range 2 {
		res, err := rt.cli.NetworkCreate(ctx, dup, client.NetworkCreateOptions{Driver: "bridge"})
		if err != nil {
			t.Fatal(err)
		}
		dupIDs = append(dupIDs, res.ID)
	}
	_, err = rt.EnsureNetwork(ctx, dup, nil)
	mustContain(t, err, "ambiguous", dupIDs[0], dupIDs[1])

	// Not ostset's: kept.
	if removed, err := rt.RemoveNetwork(ctx, name+"-longer"); removed || err != nil {
		t.Fatalf("RemoveNetwork(unmanaged) = %v, %v", removed, err)
	}
	// In use: kept.
	if _, err := rt.CreateReplica(ctx, replicaSpec(set, 0)); err != nil {
		t.Fatal(err)
	}
	if removed, err := rt.RemoveNetwork(ctx, name); removed || err != nil {
		t.Fatalf("RemoveNetwork(in use) = %v, %v", removed, err)
	}
	obs, _ := rt.Observe(ctx, set, engine.ObserveOptions{})
	if err := rt.RemoveReplica(ctx, set, obs.Replicas[0].ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if removed, err := rt.RemoveNetwork(ctx, name); !removed || err != nil {
		t.Fatalf("RemoveNetwork(empty, managed) = %v, %v", removed, err)
	}
	if removed, err := rt.RemoveNetwork(ctx, name); removed || err != nil {
		t.Fatalf("RemoveNetwork(gone) = %v, %v", removed, err)
	}
	if found, _ := rt.networksNamed(ctx, name); len(found) != 0 {
		t.Fatalf("network %s still there: %+v", name, found)
	}
}

func TestWatch(t *testing.T) {
	t.Parallel()
	set := newSet(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	ch, err := rt.Watch(ctx, set)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rt.Watch(ctx, set+"-other")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := rt.CreateReplica(ctx, replicaSpec(set, 0)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Logf("Watch signalled %s after CreateReplica began", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("no signal from Watch")
	}
	select {
	case <-other:
		t.Error("Watch of another set was signalled")
	default:
	}
	cancel()
	for range ch { // drains, then ends: closed on cancel
	}
}

// TestWatchSetsCarriesTheContainer: the daemon's shared subscription says of
// each event the set, the container's name and its ID (a destroy takes that
// container out of the daemon's kept observation).
func TestWatchSetsCarriesTheContainer(t *testing.T) {
	t.Parallel()
	set := newSet(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	events, err := rt.WatchSets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	spec := replicaSpec(set, 0)
	created, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RemoveReplica(ctx, set, created.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if e.Set != set || e.Action != "destroy" {
				continue // other tests' sets share the engine
			}
			if e.ID != created.ID || e.Name != spec.Name {
				t.Fatalf("destroy event %+v, want ID %s and name %s", e, created.ID, spec.Name)
			}
			return
		case <-timeout:
			t.Fatal("no destroy event for the set")
		}
	}
}

// TestWatchFilter: health_status events pass the filter, the exec_* events of
// every probe do not.
func TestWatchFilter(t *testing.T) {
	t.Parallel()
	set := newSet(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	msgs, errs, err := rt.subscribe(ctx, plan.LabelSet+"="+set)
	if err != nil {
		t.Fatal(err)
	}
	spec := replicaSpec(set, 0)
	spec.Healthcheck = &plan.Healthcheck{Test: []string{"CMD", "/app", "health"}, Interval: 200 * time.Millisecond, Retries: 3}
	if _, err := rt.CreateReplica(ctx, spec); err != nil {
		t.Fatal(err)
	}
	var actions []string
	timeout := time.After(2 * time.Second) // about 10 probes
	for done := false; !done; {
		select {
		case m := <-msgs:
			actions = append(actions, string(m.Action))
		case err := <-errs:
			t.Fatal(err)
		case <-timeout:
			done = true
		}
	}
	t.Logf("actions: %v", actions)
	if !slices.Contains(actions, "health_status: healthy") || !slices.Contains(actions, "start") {
		t.Errorf("missing start or health_status: healthy in %v", actions)
	}
	for _, a := range actions {
		if strings.HasPrefix(a, "exec_") {
			t.Errorf("exec event passed the filter: %s", a)
		}
	}
}

// Two networks of one name, both ostset's (a create whose process was killed
// while the engine still made the network, and the next create): EnsureNetwork
// keeps the one replicas are attached to, or the oldest, and removes the
// other; RemoveNetwork removes both once empty.
func TestDuplicateManagedNetworksRepaired(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	name := set + "-net"
	managed := client.NetworkCreateOptions{Driver: "bridge", Labels: map[string]string{plan.LabelManaged: "true", testLabel: set}}
	create := func() string {
		t.Helper()
		res, err := rt.cli.NetworkCreate(ctx, name, managed)
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	ids := func() []string {
		t.Helper()
		found, err := rt.networksNamed(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range found {
			out = append(out, n.ID)
		}
		return out
	}

	// None in use: the oldest is kept.
	older := create()
	newer := create()
	if got, err := rt.EnsureNetwork(ctx, name, nil); err != nil || got != older {
		t.Fatalf("EnsureNetwork with two empty duplicates = %s, %v; want the older %s (newer %s)", got, err, older, newer)
	}
	if got := ids(); len(got) != 1 || got[0] != older {
		t.Fatalf("networks named %s after the repair: %v, want only %s", name, got, older)
	}

	// The newer in use: it is kept, the older removed.
	newer = create()
	rt.forgetNetwork(name)
	opts, err := createOptions(replicaSpec(set, 0))
	if err != nil {
		t.Fatal(err)
	}
	attach(&opts, newer, nil)
	if _, err := rt.cli.ContainerCreate(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if got, err := rt.EnsureNetwork(ctx, name, nil); err != nil || got != newer {
		t.Fatalf("EnsureNetwork with the newer duplicate in use = %s, %v; want %s", got, err, newer)
	}
	if got := ids(); len(got) != 1 || got[0] != newer {
		t.Fatalf("networks named %s after the repair: %v, want only %s", name, got, newer)
	}

	// down: the duplicate is removed along with the network once empty.
	other := create()
	obs, err := rt.Observe(ctx, set, engine.ObserveOptions{})
	if err != nil || len(obs.Replicas) != 1 {
		t.Fatalf("observe: %+v, %v", obs, err)
	}
	if err := rt.RemoveReplica(ctx, set, obs.Replicas[0].ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if removed, err := rt.RemoveNetwork(ctx, name); !removed || err != nil {
		t.Fatalf("RemoveNetwork with a duplicate (%s) = %v, %v", other, removed, err)
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("networks named %s left: %v", name, got)
	}
}
