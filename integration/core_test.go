//go:build integration

package integration

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Identity: names, hostnames, labels, env, DNS aliases, and a volume whose data
// survives the replacement of its replica by a rolling update.
func TestIdentityAndDataSurviveUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))

	if got, want := h.replicaNames(), []string{h.name(0), h.name(1), h.name(2)}; !sameSet(got, want) {
		t.Fatalf("replicas %v, want %v", got, want)
	}
	svc := "svc-" + h.set
	for ord := range 3 {
		name := h.name(ord)
		c := h.inspect(name)
		if c.Config.Hostname != name {
			t.Errorf("%s: hostname %q", name, c.Config.Hostname)
		}
		for k, v := range map[string]string{"io.ostset.set": h.set, "io.ostset.ordinal": itoa(ord)} {
			if c.Config.Labels[k] != v {
				t.Errorf("%s: label %s=%q, want %q", name, k, c.Config.Labels[k], v)
			}
		}
		if !strings.HasPrefix(c.Config.Labels["io.ostset.revision"], h.set+"-") {
			t.Errorf("%s: revision label %q", name, c.Config.Labels["io.ostset.revision"])
		}
		for _, e := range []string{"OSTSET_SET=" + h.set, "OSTSET_ORDINAL=" + itoa(ord), "OSTSET_NAME=" + name, "OSTSET_SERVICE=" + svc} {
			if !slices.Contains(c.Config.Env, e) {
				t.Errorf("%s: env lacks %s", name, e)
			}
		}
		aliases := c.NetworkSettings.Networks[h.network].Aliases
		for _, a := range []string{name, name + "." + svc, svc} {
			if !slices.Contains(aliases, a) {
				t.Errorf("%s: aliases %v lack %s", name, aliases, a)
			}
		}
		if !hasVolume(c, "data-"+name, "/data") {
			t.Errorf("%s: mounts %+v lack data-%s at /data", name, c.Mounts, name)
		}
	}
	if out := h.docker("exec", h.name(0), "/web", "lookup", h.name(1)+"."+svc); out == "" {
		t.Errorf("%s.%s does not resolve from %s", h.name(1), svc, h.name(0))
	}
	if addrs := strings.Fields(h.docker("exec", h.name(0), "/web", "lookup", svc)); len(addrs) != 3 {
		t.Errorf("%s resolves to %v, want the 3 replicas", svc, addrs)
	}

	h.docker("exec", h.name(1), "/web", "write", "/data/note", "kept by "+h.name(1))
	oldID := h.inspect(h.name(1)).ID
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV2))
	c := h.inspect(h.name(1))
	if c.ID == oldID {
		t.Fatalf("%s was not replaced by the update", h.name(1))
	}
	if got := h.docker("exec", h.name(1), "/web", "cat", "/data/note"); got != "kept by "+h.name(1) {
		t.Errorf("data after update: %q", got)
	}
}

// OrderedReady scale-up and scale-down, as Docker's own event log saw them:
// each ordinal is created only once the one below passed its healthcheck.
func TestOrderedScaleInDockerEvents(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rec := h.recordEvents()
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	evs := rec()
	for ord := 1; ord < 3; ord++ {
		before(t, evs, event{readyEvent, h.name(ord - 1)}, event{"create", h.name(ord)})
	}

	rec = h.recordEvents()
	r := h.mustOstset("scale", h.set, "--replicas", "1")
	evs = rec()
	before(t, evs, event{"destroy", h.name(2)}, event{"kill", h.name(1)})
	if indexOf(evs, "destroy", h.name(1)) < 0 || h.exists(h.name(2)) || h.exists(h.name(1)) {
		t.Errorf("scale down did not remove %s and %s:\n%s\n%v", h.name(2), h.name(1), r, evs)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 3 {
		t.Errorf("volumes after scale down (Retain): %v, want all 3", vols)
	}
}

// Parallel creates every replica without waiting for the ones below.
func TestParallelDoesNotWait(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rec := h.recordEvents()
	spec := baseSpec + "podManagementPolicy: Parallel\n"
	spec = strings.Replace(spec, "  healthcheck:", "  env: {START_DELAY: 2s}\n  healthcheck:", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	evs := rec()
	before(t, evs, event{"create", h.name(2)}, event{readyEvent, h.name(0)})
}

// Scale-up halts while a replica is unhealthy and resumes once it recovers.
func TestScaleUpHaltsWhileUnhealthy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeSpec(strings.Replace(baseSpec, "replicas: 3", "replicas: 2", 1), imageV1)
	h.mustOstset("up", "-f", file)
	h.docker("exec", h.name(0), "/web", "touch", "/data/unhealthy")
	h.awaitHealth(h.name(0), "unhealthy")

	r := h.ostset("scale", h.set, "--replicas", "3", "--timeout", "4s")
	if r.code != 3 {
		t.Fatalf("scale while unhealthy: want exit 3 (timeout), got %s", r)
	}
	if h.exists(h.name(2)) {
		t.Fatalf("%s created while %s is unhealthy", h.name(2), h.name(0))
	}
	if !strings.Contains(r.stdout, h.name(0)+` not ready (health: unhealthy: "web: health: 503 Service Unavailable")`) {
		t.Errorf("output does not say what it waits for:\n%s", r)
	}

	h.docker("exec", h.name(0), "/web", "rm", "/data/unhealthy")
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if !h.exists(h.name(2)) {
		t.Fatalf("%s not created after %s recovered", h.name(2), h.name(0))
	}
}

// A rolling update goes from the highest ordinal down and honours the partition.
func TestRollingUpdateWithPartition(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	ids := map[string]string{}
	for ord := range 3 {
		ids[h.name(ord)] = h.inspect(h.name(ord)).ID
	}
	oldRev := h.inspect(h.name(0)).Config.Labels["io.ostset.revision"]

	partitioned := baseSpec + "updateStrategy:\n  rollingUpdate:\n    partition: 2\n"
	h.mustOstset("up", "-f", h.writeSpec(partitioned, imageV2))
	newRev := h.inspect(h.name(2)).Config.Labels["io.ostset.revision"]
	if newRev == oldRev {
		t.Fatalf("%s still at %s after the update", h.name(2), oldRev)
	}
	for _, ord := range []int{0, 1} {
		if c := h.inspect(h.name(ord)); c.ID != ids[h.name(ord)] || c.Config.Labels["io.ostset.revision"] != oldRev {
			t.Errorf("%s below the partition was touched", h.name(ord))
		}
	}

	// A replica below the partition that is deleted comes back at the current revision.
	h.docker("rm", "-f", h.name(0))
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if rev := h.inspect(h.name(0)).Config.Labels["io.ostset.revision"]; rev != oldRev {
		t.Errorf("%s recreated at %s, want the current revision %s", h.name(0), rev, oldRev)
	}

	rec := h.recordEvents()
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV2))
	evs := rec()
	before(t, evs, event{"destroy", h.name(1)}, event{"destroy", h.name(0)})
	before(t, evs, event{readyEvent, h.name(1)}, event{"kill", h.name(0)})
	for ord := range 3 {
		if rev := h.inspect(h.name(ord)).Config.Labels["io.ostset.revision"]; rev != newRev {
			t.Errorf("%s at %s, want %s", h.name(ord), rev, newRev)
		}
	}
}

// OnDelete never replaces on its own; a deleted replica comes back updated.
func TestOnDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := baseSpec + "updateStrategy:\n  type: OnDelete\n"
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	oldRev := h.inspect(h.name(0)).Config.Labels["io.ostset.revision"]
	ids := map[string]string{}
	for ord := range 3 {
		ids[h.name(ord)] = h.inspect(h.name(ord)).ID
	}
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV2))
	for ord := range 3 {
		if h.inspect(h.name(ord)).ID != ids[h.name(ord)] {
			t.Errorf("OnDelete replaced %s", h.name(ord))
		}
	}
	h.docker("rm", "-f", h.name(1))
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	if rev := h.inspect(h.name(1)).Config.Labels["io.ostset.revision"]; rev == oldRev {
		t.Errorf("%s came back at the old revision %s", h.name(1), rev)
	}
	if rev := h.inspect(h.name(0)).Config.Labels["io.ostset.revision"]; rev != oldRev {
		t.Errorf("%s changed revision under OnDelete", h.name(0))
	}
}

// A replica that exited and that Docker does not restart is recreated.
func TestExitedReplicaRecreated(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	old := h.inspect(h.name(1)).ID
	h.docker("stop", h.name(1)) // unless-stopped: Docker leaves it exited
	h.mustOstset("reconcile", h.set, "--timeout", "60s")
	c := h.inspect(h.name(1))
	if c.ID == old || c.State.Status != "running" {
		t.Errorf("%s: id %s state %s; want a new running container", h.name(1), c.ID[:12], c.State.Status)
	}
}

// `down` removes replicas highest first and keeps volumes under Retain.
func TestDownKeepsVolumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	rec := h.recordEvents()
	h.mustOstset("down", h.set)
	evs := rec()
	before(t, evs, event{"destroy", h.name(2)}, event{"destroy", h.name(1)})
	before(t, evs, event{"destroy", h.name(1)}, event{"destroy", h.name(0)})
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("containers left after down: %v", names)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 3 {
		t.Errorf("volumes after down (Retain): %v", vols)
	}
	if r := h.ostset("status", h.set); r.code != 2 {
		t.Errorf("status of a deleted set: want exit 2, got %s", r)
	}
}

// Invalid input exits 2 with the file and line; nothing is created.
func TestInvalidSetFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.ostset("up", "-f", h.writeSpec(baseSpec+"replica: 2\n", imageV1))
	if r.code != 2 || !strings.Contains(r.stderr, "set.yaml:") || !strings.Contains(r.stderr, `"replica"`) {
		t.Errorf("want exit 2 naming the file, line and field: %s", r)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("containers created from an invalid file: %v", names)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func hasVolume(c containerInfo, name, target string) bool {
	for _, m := range c.Mounts {
		if m.Type == "volume" && m.Name == name && m.Destination == target {
			return true
		}
	}
	return false
}

func itoa(i int) string { return strconv.Itoa(i) }
