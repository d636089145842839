//go:build integration

package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

func TestCreateReplicaMapsSpec(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conf"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := replicaSpec(set, 3)
	spec.Entrypoint = []string{"/app"}
	spec.Cmd = []string{} // explicit empty args: still the default server
	spec.WorkingDir = "/data"
	spec.User = "1000:1000"
	spec.Healthcheck = &plan.Healthcheck{Test: []string{"CMD", "/app", "health"}, Interval: 2 * time.Second,
		Timeout: time.Second, Retries: 4, StartPeriod: 3 * time.Second}
	spec.Mounts = []plan.Mount{{Type: "bind", Source: dir, Target: "/etc/app", ReadOnly: true}}
	spec.NanoCPUs = 500_000_000
	spec.MemoryBytes = 64 << 20
	spec.MemoryReservation, spec.CPUShares = 32<<20, 512
	spec.Domainname = "web.default.svc.cluster.local"
	spec.Restart = "on-failure:3"
	spec.StopTimeout = 1500 * time.Millisecond
	spec.Ports = []plan.PortBinding{{ContainerPort: 8080}, {ContainerPort: 9090, Protocol: "udp"}}
	volumeFor(&spec)
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	c := inspect(t, ctx, res.ID)
	cfg, host := c.Config, c.HostConfig
	checks := []struct {
		what      string
		got, want any
	}{
		{"name", c.Name, "/" + spec.Name},
		{"hostname", cfg.Hostname, spec.Name},
		{"domainname", cfg.Domainname, "web.default.svc.cluster.local"},
		{"image", c.Image, imageID},
		{"entrypoint", cfg.Entrypoint, []string{"/app"}},
		{"workdir", cfg.WorkingDir, "/data"},
		{"user", cfg.User, "1000:1000"},
		{"label set", cfg.Labels[plan.LabelSet], set},
		{"label ordinal", cfg.Labels[plan.LabelOrdinal], "3"},
		{"label revision", cfg.Labels[plan.LabelRevision], set + "-abc123"},
		{"label user", cfg.Labels[testLabel], set},
		{"env", slices.Contains(cfg.Env, "OSTSET_NAME="+spec.Name), true},
		{"healthcheck", *cfg.Healthcheck, container.HealthConfig{Test: []string{"CMD", "/app", "health"},
			Interval: 2 * time.Second, Timeout: time.Second, Retries: 4, StartPeriod: 3 * time.Second}},
		{"stop timeout", *cfg.StopTimeout, 2},
		{"restart", host.RestartPolicy, container.RestartPolicy{Name: "on-failure", MaximumRetryCount: 3}},
		{"cpus", host.NanoCPUs, int64(500_000_000)},
		{"memory", host.Memory, int64(64 << 20)},
		{"memory reservation", host.MemoryReservation, int64(32 << 20)},
		{"cpu shares", host.CPUShares, int64(512)},
		{"exposed", len(cfg.ExposedPorts), 2},
		{"exposed udp", hasPort(cfg.ExposedPorts, "9090/udp"), true},
		{"published", len(host.PortBindings), 0},
		{"mounts", len(c.Mounts), 2},
	}
	for _, ck := range checks {
		if fmt.Sprint(ck.got) != fmt.Sprint(ck.want) {
			t.Errorf("%s = %v, want %v", ck.what, ck.got, ck.want)
		}
	}
	for _, m := range c.Mounts {
		ok := (m.Destination == "/etc/app" && m.Source == dir && !m.RW) ||
			(m.Destination == "/data" && m.Name == "data-"+spec.Name && m.RW)
		if !ok {
			t.Errorf("unexpected mount %+v", m)
		}
	}
	if !c.State.Running {
		t.Errorf("state %+v, want running", c.State)
	}

	// An invalid spec is refused before any volume or network is created.
	bad := replicaSpec(set, 4)
	bad.Network = set + "-other-net"
	bad.Restart = "sometimes"
	badVol := volumeFor(&bad)
	_, err = rt.CreateReplica(ctx, bad)
	mustContain(t, err, `restart policy "sometimes"`)
	if _, err := rt.cli.VolumeInspect(ctx, badVol, client.VolumeInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("volume %s created for an invalid spec: %v", badVol, err)
	}
	if found, _ := rt.networksNamed(ctx, bad.Network); len(found) != 0 {
		t.Errorf("network %s created for an invalid spec", bad.Network)
	}
}

func hasPort(ps network.PortSet, s string) bool {
	_, ok := ps[network.MustParsePort(s)]
	return ok
}

func TestAliasesResolve(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	var ids []string
	for ord := range 2 {
		res, err := rt.CreateReplica(ctx, replicaSpec(set, ord))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	spec := replicaSpec(set, 0)
	c := inspect(t, ctx, ids[0])
	t.Logf("NetworkMode %s; endpoint config stored under %v", c.HostConfig.NetworkMode, keys(c.NetworkSettings.Networks))
	ep, ok := c.NetworkSettings.Networks[spec.Network]
	if !ok || len(c.NetworkSettings.Networks) != 1 {
		t.Fatalf("networks %v, want only %s", keys(c.NetworkSettings.Networks), spec.Network)
	}
	// Below API 1.45 inspect adds the short ID (and, on some engines, the hostname).
	var extra, ours []string
	for _, a := range ep.Aliases {
		switch {
		case slices.Contains(spec.Aliases, a):
			ours = append(ours, a)
		case a == c.ID[:12] || a == c.Config.Hostname:
			extra = append(extra, a)
		default:
			t.Errorf("unexpected alias %q", a)
		}
	}
	slices.Sort(ours)
	want := slices.Sorted(slices.Values(spec.Aliases))
	if !slices.Equal(ours, want) {
		t.Errorf("aliases %v, want %v (plus extras)", ep.Aliases, spec.Aliases)
	}
	t.Logf("aliases reported: %v (extra: %v)", ep.Aliases, extra)

	// Resolve them from a probe container on the same network.
	names := []string{set + "-0", set + "-0." + set, set + "-1", set}
	out, code := probe(t, ctx, set, ep.NetworkID, append([]string{"resolve"}, names...)...)
	if code != 0 {
		t.Fatalf("resolve exited %d:\n%s", code, out)
	}
	t.Logf("probe:\n%s", out)
	if !strings.Contains(out, set+" [") || strings.Count(out, ".") < 3*len(names) {
		t.Errorf("unexpected probe output:\n%s", out)
	}
}

func keys[V any](m map[string]V) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// probe runs the test image with args on the network and returns its output and exit code.
func probe(t *testing.T, ctx context.Context, set, networkID string, args ...string) (string, int64) {
	t.Helper()
	res, err := rt.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:       set + "-probe",
		Config:     &container.Config{Image: imageID, Cmd: args, Labels: map[string]string{testLabel: set}},
		HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(networkID)},
	})
	if err != nil {
		t.Fatal(err)
	}
	wait := rt.cli.ContainerWait(ctx, res.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := rt.cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	var code int64
	select {
	case r := <-wait.Result:
		code = r.StatusCode
	case err := <-wait.Error:
		t.Fatal(err)
	}
	logs, err := rt.cli.ContainerLogs(ctx, res.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logs.Close() }()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, logs); err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

func TestVolumesReusedAndForeignRefused(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)

	spec := replicaSpec(set, 0)
	vol := volumeFor(&spec)
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil || len(res.ReusedVolumes) != 0 {
		t.Fatalf("first create: %+v, %v", res, err)
	}
	if err := rt.RemoveReplica(ctx, set, res.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	res, err = rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ReusedVolumes) != 1 || res.ReusedVolumes[0].Name != vol || res.ReusedVolumes[0].Claim != "data" ||
		res.ReusedVolumes[0].Ordinal != 0 || res.ReusedVolumes[0].Created.IsZero() {
		t.Fatalf("second create reused %+v, want %s", res.ReusedVolumes, vol)
	}

	// Volumes with the replica's name that are not the set's, or not this ordinal's.
	cases := map[int]map[string]string{
		1: {plan.LabelSet: set + "-other", plan.LabelClaim: "data", plan.LabelOrdinal: "1"},
		2: {},
		3: {plan.LabelSet: set, plan.LabelClaim: "data", plan.LabelOrdinal: "9"},
		4: {plan.LabelSet: set, plan.LabelClaim: "logs", plan.LabelOrdinal: "4"},
	}
	for ord, labels := range cases {
		s := replicaSpec(set, ord)
		name := volumeFor(&s)
		labels[testLabel] = set
		if _, err := rt.cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: name, Labels: labels}); err != nil {
			t.Fatal(err)
		}
		_, err := rt.CreateReplica(ctx, s)
		mustContain(t, err, s.Name+": volume "+name+" exists and does not belong to set "+set)
		if _, err := rt.cli.ContainerInspect(ctx, s.Name, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
			t.Errorf("container %s was created despite the foreign volume (%v)", s.Name, err)
		}
	}
	t.Logf("refusal reads: %v", func() error { s := replicaSpec(set, 1); volumeFor(&s); _, e := rt.CreateReplica(ctx, s); return e }())

	// RemoveVolume: refuses the foreign one, removes the set's own, and a gone one is fine.
	err = rt.RemoveVolume(ctx, set, "data-"+set+"-1")
	mustContain(t, err, "refusing to remove volume data-"+set+"-1", "does not belong to set "+set)
	err = rt.RemoveVolume(ctx, set, "data-"+set+"-2")
	mustContain(t, err, "no io.ostset.set label")
	if err := rt.RemoveReplica(ctx, set, res.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := rt.RemoveVolume(ctx, set, vol); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rt.cli.VolumeInspect(ctx, "data-"+set+"-1", client.VolumeInspectOptions{}); err != nil {
		t.Errorf("foreign volume gone: %v", err)
	}
}

func TestForeignContainersUntouched(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	unlabelled := rawContainer(t, ctx, set, set+"-3", nil, true)
	otherSet := rawContainer(t, ctx, set, set+"-4", map[string]string{plan.LabelSet: set + "-other"}, true)
	for _, id := range []string{unlabelled, otherSet} {
		err := rt.RemoveReplica(ctx, set, id, time.Second)
		mustContain(t, err, "refusing to remove container", "does not belong to set "+set)
		err = rt.StartReplica(ctx, set, id)
		mustContain(t, err, "refusing to start container")
		_, err = rt.Logs(ctx, set, id, false, "")
		mustContain(t, err, "refusing to read logs of container")
		if c := inspect(t, ctx, id); !c.State.Running {
			t.Errorf("%s: no longer running: %+v", c.Name, c.State)
		}
	}
	t.Logf("refusal reads: %v", rt.RemoveReplica(ctx, set, unlabelled, time.Second))

	// The name is taken: CreateReplica says so and leaves the container alone.
	_, err := rt.CreateReplica(ctx, replicaSpec(set, 3))
	mustContain(t, err, "create container "+set+"-3", "already in use")
	t.Logf("name conflict reads: %v", err)
	if c := inspect(t, ctx, unlabelled); !c.State.Running {
		t.Errorf("foreign container changed: %+v", c.State)
	}
}

func TestRemoveAndStartReplica(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	res, err := rt.CreateReplica(ctx, replicaSpec(set, 0))
	if err != nil {
		t.Fatal(err)
	}
	// The app handles SIGTERM once it says it listens; before that, as PID 1,
	// it ignores the signal, or exits on it before printing anything if the
	// signal lands while its runtime starts. Each start is awaited until the
	// app listens, so that every stop below is the app's own, and the logs
	// hold one line per start.
	waitListening(t, ctx, set, res.ID, 1)
	if _, err := rt.cli.ContainerStop(ctx, res.ID, client.ContainerStopOptions{Timeout: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if err := rt.StartReplica(ctx, set, res.ID); err != nil {
		t.Fatal(err)
	}
	if c := inspect(t, ctx, res.ID); !c.State.Running {
		t.Fatalf("not running after StartReplica: %+v", c.State)
	}
	waitListening(t, ctx, set, res.ID, 2) // the first start's line, then this one's
	start := time.Now()
	if err := rt.RemoveReplica(ctx, set, res.ID, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// The app exits on SIGTERM: well inside the grace period.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("RemoveReplica took %s", d)
	}
	t.Logf("RemoveReplica of a running replica took %s", time.Since(start))
	if _, err := rt.cli.ContainerInspect(ctx, res.ID, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Fatalf("container still there: %v", err)
	}
	if err := rt.RemoveReplica(ctx, set, res.ID, time.Second); err != nil {
		t.Fatalf("removing a gone replica: %v", err)
	}
	err = rt.StartReplica(ctx, set, res.ID)
	mustContain(t, err, "inspect container")
	if !cerrdefs.IsNotFound(err) {
		t.Errorf("StartReplica of a gone container: %v is not NotFound", err)
	}
}

func TestPortConflictOnStart(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	port := freePort(t)
	first := replicaSpec(set, 0)
	first.Ports = []plan.PortBinding{{ContainerPort: 8080, HostPort: port, Protocol: "tcp"}}
	res, err := rt.CreateReplica(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	c := inspect(t, ctx, res.ID)
	if b := c.HostConfig.PortBindings[network.MustParsePort("8080/tcp")]; len(b) != 1 || b[0].HostPort != fmt.Sprint(port) {
		t.Errorf("port bindings %v, want 8080/tcp -> %d", c.HostConfig.PortBindings, port)
	}
	second := replicaSpec(set, 1)
	second.Ports = first.Ports
	_, err = rt.CreateReplica(ctx, second)
	mustContain(t, err, set+"-1: start: ", "port is already allocated")
	t.Logf("port conflict reads: %v", err)
	if _, err := rt.cli.ContainerInspect(ctx, second.Name, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("the container that failed to start is still there: %v", err)
	}
}

func TestLogs(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	res, err := rt.CreateReplica(ctx, replicaSpec(set, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	waitFor(t, 10*time.Second, "the start-up lines", func() bool {
		rc, err := rt.Logs(ctx, set, res.ID, false, "")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rc.Close() }()
		out, err = io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Contains(out, []byte("stderr works too"))
	})
	// stdout and stderr are separate pipes: their relative order is not kept.
	lines := strings.SplitAfter(string(out), "\n")
	slices.Sort(lines)
	if want := []string{"", "listening on :8080 as " + set + "-0\n", "stderr works too\n"}; !slices.Equal(lines, want) {
		t.Errorf("logs %q, want the lines %q", out, want[1:])
	}

	// Follow: the stream stays open until the container stops; Close ends it early.
	rc, err := rt.Logs(ctx, set, res.ID, true, "1")
	if err != nil {
		t.Fatal(err)
	}
	removed := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		removed <- rt.RemoveReplica(ctx, set, res.ID, 5*time.Second)
	}()
	defer func() {
		if err := <-removed; err != nil {
			t.Error(err)
		}
	}()
	all, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Error(err)
	}
	if strings.Count(string(all), "\n") != 2 || !strings.HasSuffix(string(all), "shutting down\n") {
		t.Errorf("followed logs %q, want the last line so far and then the shutdown line", all)
	}
}

// A create whose answer was lost left a container behind: the next create of
// the same replica adopts it (and starts it) instead of failing on the name,
// while a create for another revision reports the name as taken and leaves the
// container alone.
func TestCreateReplicaAdoptsItsLostCreate(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	spec := replicaSpec(set, 0)
	spec.Labels = map[string]string{testLabel: set, plan.LabelSet: set, plan.LabelOrdinal: "0", plan.LabelRevision: spec.Revision}
	if _, err := rt.EnsureNetwork(ctx, spec.Network, nil); err != nil {
		t.Fatal(err)
	}
	// What the engine holds after a create whose answer never arrived.
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	lost, err := rt.cli.ContainerCreate(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatalf("create after a lost create: %v", err)
	}
	if res.ID != lost.ID {
		t.Fatalf("create returned %s, want the container already created %s", res.ID, lost.ID)
	}
	if c := inspect(t, ctx, lost.ID); !c.State.Running {
		t.Fatalf("the adopted container was not started: %+v", c.State)
	}
	// Again, now that it runs: still adopted, not restarted.
	again, err := rt.CreateReplica(ctx, spec)
	if err != nil || again.ID != lost.ID {
		t.Fatalf("create of a running replica: %v, %v", again.ID, err)
	}

	other := spec
	other.Revision = set + "-def456"
	other.Labels = map[string]string{testLabel: set, plan.LabelSet: set, plan.LabelOrdinal: "0", plan.LabelRevision: other.Revision}
	_, err = rt.CreateReplica(ctx, other)
	mustContain(t, err, "create container "+spec.Name, "already in use by container "+lost.ID[:12], "label io.ostset.revision is \""+spec.Revision+"\"")
	if c := inspect(t, ctx, lost.ID); !c.State.Running || c.Config.Labels[plan.LabelRevision] != spec.Revision {
		t.Fatalf("the container changed: %+v", c.State)
	}
}

// A create whose cached network ID went stale (the network removed by another
// process since this one looked it up) succeeds: the start that fails for the
// gone network is tried again at once with the network made again, and the
// volume the first try made is not reported as reused.
func TestCreateReplicaOnANetworkRemovedSinceCached(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	own, err := New() // a cache of its own: no other test's event watch drops it
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = own.Close() }()
	first := replicaSpec(set, 0)
	res, err := own.CreateReplica(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if err := own.RemoveReplica(ctx, set, res.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cli.NetworkRemove(ctx, first.Network, client.NetworkRemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	second := replicaSpec(set, 1)
	vol := volumeFor(&second)
	res, err = own.CreateReplica(ctx, second)
	if err != nil {
		t.Fatalf("create on a network removed since it was cached: %v", err)
	}
	if len(res.ReusedVolumes) > 0 {
		t.Errorf("volume %s, made by the same call, reported reused: %+v", vol, res.ReusedVolumes)
	}
	if c := inspect(t, ctx, res.ID); !c.State.Running {
		t.Errorf("not running: %+v", c.State)
	}
}

// A waiting command's watch of a set wakes when a replica is disconnected
// from a network by hand: no container event tells of it, a network event
// does.
func TestWatchWakesOnANetworkDisconnect(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	set := newSet(t)
	spec := replicaSpec(set, 0)
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	own, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = own.Close() }()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake, err := own.Watch(wctx, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cli.NetworkDisconnect(ctx, spec.Network, client.NetworkDisconnectOptions{Container: res.ID}); err != nil {
		t.Fatal(err)
	}
	select {
	case _, open := <-wake:
		if !open {
			t.Fatal("the watch ended")
		}
	case <-ctx.Done():
		t.Fatal("no wake-up for the disconnect")
	}
}

// waitListening waits until the app in container id has said it listens n
// times in all; on a timeout it says what the logs and the state were.
func waitListening(t *testing.T, ctx context.Context, set, id string, n int) {
	t.Helper()
	var out []byte
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc, err := rt.Logs(ctx, set, id, false, "")
		if err != nil {
			t.Fatal(err)
		}
		out, err = io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(out, []byte("listening on :8080")) >= n {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	c := inspect(t, ctx, id)
	t.Fatalf("timed out after 10s waiting for the app to listen (start %d): state %+v, logs:\n%s", n, *c.State, out)
}
