//go:build integration

package integration

import (
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newNetHarness is a harness whose set, containers, volumes and networks are
// named nf…, apart from those of other tests on the shared engine.
func newNetHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessPrefix(t, "nf")
}

// otherNetwork names a second network of the test, removed (if ostset made
// it) when the test ends, after the set's containers.
func (h *harness) otherNetwork() string {
	h.t.Helper()
	name := h.set + "-net2"
	h.t.Cleanup(func() {
		h.cleanup()
		if ids := h.dockerLines("network", "ls", "-q", "--filter", "name=^"+name+"$", "--filter", "label=io.ostset.managed=true"); len(ids) > 0 {
			h.dockerQuiet(append([]string{"network", "rm"}, ids...)...)
		}
	})
	return name
}

// networksOf names the networks a container has an endpoint on.
func (h *harness) networksOf(name string) []string {
	var out []string
	for n := range h.inspect(name).NetworkSettings.Networks {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// A change of network under a partition that covers every replica changes
// no replica: each stays on the network of its revision (it was removed as
// "not attached", recreated there below the partition, and removed again, for
// ever). Lowering the partition rolls the change from the highest ordinal
// down, and the network the set left is removed once no replica is on it.
func TestNetworkChangeKeepsThePartitionAndRollsFromTheTop(t *testing.T) {
	t.Parallel()
	h := newNetHarness(t)
	moved := h.otherNetwork()
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(2), imageV1))
	h.mustOstset("rollout", "partition", h.set, "2")
	before := h.ids()
	h.mustOstset("up", "-f", h.writeSpec(strings.ReplaceAll(daemonSpec(2), "{{NET}}", moved), imageV1), "--timeout", "60s")
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if after := h.ids(); !maps.Equal(before, after) {
		t.Fatalf("replicas replaced under partition 2: %v, then %v", before, after)
	}
	for ord := range 2 {
		if got := h.networksOf(h.name(ord)); !slices.Equal(got, []string{h.network}) {
			t.Errorf("%s on %v, want the network of its revision, %s", h.name(ord), got, h.network)
		}
	}

	stop := h.recordEvents()
	h.mustOstset("rollout", "partition", h.set, "0", "--wait")
	var destroyed []string
	for _, e := range stop() {
		if e.Action == "destroy" {
			destroyed = append(destroyed, e.Name)
		}
	}
	if want := []string{h.name(1), h.name(0)}; !slices.Equal(destroyed, want) {
		t.Errorf("replaced %v, want %v (highest ordinal first)", destroyed, want)
	}
	for ord := range 2 {
		if got := h.networksOf(h.name(ord)); !slices.Equal(got, []string{moved}) {
			t.Errorf("%s on %v after the rollout, want %s", h.name(ord), got, moved)
		}
	}
	if out, err := h.tryDocker("network", "inspect", h.network); err == nil {
		t.Errorf("the network the set left is still there:\n%.300s", out)
	}
}

// With the daemon running, down then up brings the set back at once: the
// daemon drops its cached ID of the network down removed when the network's
// destroy event arrives (or, failing that, when the start with it fails), and
// makes the network again. The up says each replica's creation and readiness
// once, in ordinal order, with no error, and no reuse of a volume made by the
// same rollout.
func TestDaemonBringsASetBackAfterDownAndUp(t *testing.T) {
	t.Parallel()
	h := newNetHarness(t)
	h.startDaemon(nil, "--resync", "10m")
	spec := h.writeSpec(daemonSpec(2), imageV1)
	h.mustOstset("up", "-f", spec, "--wait=false")
	h.awaitReady(2)
	for _, down := range [][]string{{"down", h.set}, {"down", h.set, "--volumes"}} {
		h.mustOstset(down...)
		began := time.Now()
		r := h.mustOstset("up", "-f", spec, "--timeout", "60s")
		took := time.Since(began)
		h.checkReplicas(2)
		t.Logf("up after %v took %s with the daemon running:\n%s", down, took.Round(10*time.Millisecond), r.stdout)
		if took > 30*time.Second {
			t.Errorf("up after down took %s:\n%s", took, r)
		}
		var lines []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[0], h.set+"-") && (f[1] == "created" || f[1] == "ready") {
				lines = append(lines, f[0]+" "+f[1])
			}
		}
		want := []string{h.name(0) + " created", h.name(0) + " ready", h.name(1) + " created", h.name(1) + " ready"}
		if !slices.Equal(lines, want) || strings.Contains(r.stdout, "error:") || strings.Contains(r.stdout, "not recorded") {
			t.Errorf("up after %v: replica lines %q, want %q, and no error:\n%s", down, lines, want, r.stdout)
		}
		if len(down) == 3 && strings.Contains(r.stdout, "reuses volume") {
			t.Errorf("up after %v reported the reuse of a volume it made:\n%s", down, r.stdout)
		}
	}
}

// With the daemon running, replicas cut off from a network removed by hand
// (disconnect -f, then network rm) are recreated on it, the network made
// again. No container event tells of it, and the resync is 10 minutes away:
// the network events do.
func TestDaemonRecreatesReplicasOfARemovedNetwork(t *testing.T) {
	t.Parallel()
	h := newNetHarness(t)
	d := h.startDaemon(nil, "--resync", "10m")
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(2), imageV1), "--wait=false")
	h.awaitReady(2)
	old := h.ids()
	oldNet := h.docker("network", "inspect", "-f", "{{.Id}}", h.network)
	// The daemon answers a disconnect at once (it would put a replica back
	// before the network is gone, and the removal would find an endpoint):
	// it is held still while the network goes, and hears of it all after.
	if err := d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for ord := range 2 {
		h.docker("network", "disconnect", "-f", h.network, h.name(ord))
	}
	h.docker("network", "rm", h.network)
	if err := d.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	for deadline := began.Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		back := 0
		for ord := range 2 {
			// The container may go between two looks: one inspect, tolerating that.
			out, err := h.tryDocker("inspect", "-f", "{{.Id}} {{range $n, $_ := .NetworkSettings.Networks}}{{$n}} {{end}}", h.name(ord))
			if id, nets, _ := strings.Cut(strings.TrimSpace(out), " "); err == nil && id != old[h.name(ord)] && nets == h.network {
				back++
			}
		}
		if back == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicas not back on %s after 90s; daemon log:\n%s", h.network, d.out)
		}
	}
	t.Logf("both replicas back on the network %s after its removal", time.Since(began).Round(10*time.Millisecond))
	h.awaitReady(2)
	if got := h.docker("network", "inspect", "-f", `{{.Id}} {{index .Labels "io.ostset.managed"}}`, h.network); strings.HasPrefix(got, oldNet) || !strings.HasSuffix(got, " true") {
		t.Errorf("network: %q (old id %s)", got, oldNet)
	}
	failed := 0 // passes that hit the missing network (every replica recreated in one)
	for _, line := range strings.Split(d.out.String(), "\n") {
		if strings.Contains(line, "pass failed") && strings.Contains(line, "not found") {
			failed++
		}
	}
	if failed > 1 {
		t.Errorf("the daemon hit a missing network in %d passes:\n%s", failed, d.out)
	}
}

// A command that follows the daemon shows the failure the daemon keeps
// hitting, although the daemon recorded it before the command started, and
// its timeout names it.
func TestFollowerShowsTheDaemonsRepeatedFailure(t *testing.T) {
	t.Parallel()
	h := newNetHarness(t)
	h.startDaemon(nil)
	// A volume of the name replica 0 needs, not the set's: every create fails.
	h.docker("volume", "create", "--label", "io.ostset.test="+h.set, "data-"+h.name(0))
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(1), imageV1), "--wait=false")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if r := h.ostset("events", h.set); strings.Contains(r.stdout, "does not belong to set") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon recorded no failure: %s", h.ostset("events", h.set))
		}
	}
	time.Sleep(time.Second) // the daemon retries: the failure is older than the command
	r := h.ostset("reconcile", h.set, "--timeout", "5s")
	if r.code != 3 {
		t.Errorf("reconcile: exit %d, want 3 (timed out)\n%s", r.code, r)
	}
	out := r.stdout + r.stderr
	if !strings.Contains(out, "the daemon keeps failing since") || !strings.Contains(out, "the daemon's last error: ") ||
		strings.Count(out, "does not belong to set "+h.set) < 2 {
		t.Errorf("reconcile does not show the daemon's failure, and name it as it times out:\n%s", r)
	}
}

// With the daemon running, a replica disconnected by hand from the second
// network of its set is connected to it again, with its DNS names, without
// being recreated; the network event tells of it (the resync is 10 minutes
// away).
func TestDaemonConnectsAReplicaDisconnectedFromASecondNetwork(t *testing.T) {
	t.Parallel()
	h := newNetHarness(t)
	second := h.otherNetwork()
	d := h.startDaemon(nil, "--resync", "10m")
	spec := strings.Replace(daemonSpec(2), "network: {{NET}}\n", "networks: [{{NET}}, "+second+"]\n", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1), "--wait=false")
	h.awaitReady(2)
	both := []string{h.network, second}
	slices.Sort(both)
	if got := h.networksOf(h.name(0)); !slices.Equal(got, both) {
		t.Fatalf("%s on %v, want %v", h.name(0), got, both)
	}
	id := h.inspect(h.name(0)).ID
	h.docker("network", "disconnect", second, h.name(0))
	for deadline := time.Now().Add(60 * time.Second); !slices.Equal(h.networksOf(h.name(0)), both); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s not back on %s after 60s (on %v); daemon log:\n%s", h.name(0), second, h.networksOf(h.name(0)), d.out)
		}
	}
	if got := h.inspect(h.name(0)).ID; got != id {
		t.Errorf("%s was recreated (%s, was %s), not connected again", h.name(0), got, id)
	}
	aliases := h.docker("inspect", "-f", "{{json (index .NetworkSettings.Networks \""+second+"\").Aliases}}", h.name(0))
	if !strings.Contains(aliases, `"`+h.name(0)+`"`) {
		t.Errorf("%s on %s answers to %s, want its own name among them", h.name(0), second, aliases)
	}
}
