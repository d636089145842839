//go:build integration

package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func scaledSpec(replicas int, extra string) string {
	return strings.Replace(baseSpec, "replicas: 3", fmt.Sprintf("replicas: %d", replicas), 1) + extra
}

// Retain (the default): data written by web-3 is there when web-3 comes back,
// and ostset says the volume comes from an earlier life of the ordinal.
func TestScaleDownUpRetainKeepsData(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(4, ""), imageV1))
	h.docker("exec", h.name(3), "/web", "write", "/data/note", "from the first "+h.name(3))
	h.mustOstset("scale", h.set, "--replicas", "2")
	r := h.mustOstset("scale", h.set, "--replicas", "4")
	if got := h.docker("exec", h.name(3), "/web", "cat", "/data/note"); got != "from the first "+h.name(3) {
		t.Errorf("data in data-%s after scale down and up: %q", h.name(3), got)
	}
	want := h.name(3) + " reuses volume data-" + h.name(3) + " (created "
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "last used by revision "+h.set+"-") {
		t.Errorf("scale up does not report the stale volume (%q):\n%s", want, r)
	}
}

// whenScaled: Delete removes the volumes of removed ordinals; the ordinal comes
// back with an empty volume.
func TestScaleDownDeleteRemovesVolumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(4, "persistentVolumeClaimRetentionPolicy:\n  whenScaled: Delete\n"), imageV1))
	h.docker("exec", h.name(3), "/web", "write", "/data/note", "gone")
	h.mustOstset("scale", h.set, "--replicas", "2")
	for _, ord := range []int{2, 3} {
		if vols := h.dockerLines("volume", "ls", "-q", "--filter", "name=^data-"+h.name(ord)+"$"); len(vols) != 0 {
			t.Errorf("volume data-%s kept under whenScaled: Delete", h.name(ord))
		}
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 2 {
		t.Errorf("volumes of the remaining replicas: %v", vols)
	}
	r := h.mustOstset("scale", h.set, "--replicas", "4")
	if out, err := h.tryDocker("exec", h.name(3), "/web", "cat", "/data/note"); err == nil {
		t.Errorf("data survived whenScaled: Delete: %q", out)
	}
	if strings.Contains(r.stdout, "reuses volume") {
		t.Errorf("a fresh volume reported as reused:\n%s", r)
	}
}

// whenDeleted: Delete removes the volumes on down; --volumes does so explicitly.
func TestDownVolumes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, extra string
		flags       []string
	}{
		{"whenDeleted", "persistentVolumeClaimRetentionPolicy:\n  whenDeleted: Delete\n", nil},
		{"flag", "", []string{"--volumes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, c.extra), imageV1))
			h.mustOstset(append([]string{"down", h.set}, c.flags...)...)
			if vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set); len(vols) != 0 {
				t.Errorf("volumes left: %v", vols)
			}
		})
	}
}

// ordinals.start: the set can start anywhere, and moving it creates the new
// ordinals before removing the old ones.
func TestOrdinalsStartMovesTheSet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, "ordinals:\n  start: 1\n"), imageV1))
	if got, want := h.replicaNames(), []string{h.name(1), h.name(2)}; !sameSet(got, want) {
		t.Fatalf("replicas %v, want %v", got, want)
	}
	rec := h.recordEvents()
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, "ordinals:\n  start: 2\n"), imageV1))
	if got, want := h.replicaNames(), []string{h.name(2), h.name(3)}; !sameSet(got, want) {
		t.Fatalf("replicas %v, want %v", got, want)
	}
	before(t, rec(), event{readyEvent, h.name(3)}, event{"kill", h.name(1)})
}

// Ports: ordinal i publishes on hostPort+i; a port taken on the host is a clear
// error for that replica.
func TestPortsPerOrdinal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	base := freePortRange(t, 3)
	spec := scaledSpec(2, "") + fmt.Sprintf("  ports:\n    - {containerPort: 8080, hostPort: %d}\n", base)
	spec = strings.Replace(spec, "volumeClaimTemplates:", "", 1)
	spec = strings.Replace(spec, "  - name: data\n    mountPath: /data\n", "", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	for ord := range 2 {
		if got := h.docker("port", h.name(ord), "8080/tcp"); !strings.Contains(got, fmt.Sprintf(":%d", base+ord)) {
			t.Errorf("%s publishes %q, want port %d", h.name(ord), got, base+ord)
		}
	}

	l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", base+2))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	// A port held by a process that is not a container is seen only when the
	// engine refuses the start: an error a retry does not cure, so the wait
	// ends with the engine's words (exit 1) instead of running to its timeout.
	r := h.ostset("scale", h.set, "--replicas", "3", "--timeout", "2m")
	if r.code != 1 || !strings.Contains(r.stderr, h.name(2)+": start:") || !strings.Contains(r.stderr, "address already in use") {
		t.Errorf("a taken host port: want exit 1 and the engine's error naming %s:\n%s", h.name(2), r)
	}
}

// freePortRange finds n consecutive free TCP ports on the host.
func freePortRange(t *testing.T, n int) int {
	t.Helper()
	for base := 20000 + time.Now().Nanosecond()%20000; base < 60000; base += n {
		free := true
		for p := base; p < base+n && free; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", p))
			if err != nil {
				free = false
				continue
			}
			_ = l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

// down and up: the replicas come back to their kept volumes and say which
// revision used them last, as after a scale-down and up.
func TestDownUpReportsLastUse(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(scaledSpec(1, ""), imageV1)
	rev := h.mustOstset("up", "-f", spec).stdout
	h.mustOstset("down", h.set)
	r := h.mustOstset("up", "-f", spec)
	want := h.name(0) + " reuses volume data-" + h.name(0) + " (created "
	i := strings.Index(r.stdout, want)
	revision := strings.TrimSuffix(strings.Fields(strings.SplitN(rev, "(revision ", 2)[1])[0], ")")
	if i < 0 || !strings.Contains(r.stdout[i:], ", last used by revision "+revision+" until ") {
		t.Errorf("up after down does not say what used the volume last (revision %s):\n%s", revision, r)
	}
}

// The volumes down kept are listed after the set is gone, by ostset volumes
// and ostset volumes SET, as kept by a deleted set, until down --volumes
// removes them.
func TestVolumesListsWhatDownKept(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, ""), imageV1))
	h.mustOstset("down", h.set)
	for _, args := range [][]string{{"volumes"}, {"volumes", h.set}} {
		r := h.mustOstset(args...)
		for ord := range 2 {
			found := false
			for _, l := range strings.Split(r.stdout, "\n") {
				f := strings.Fields(l)
				found = found || len(f) > 6 && f[0] == "data-"+h.name(ord) && f[1] == h.set && strings.Contains(l, "kept (set deleted)")
			}
			if !found {
				t.Errorf("ostset %v does not list data-%s as kept by a deleted set:\n%s", args, h.name(ord), r)
			}
		}
		if !strings.Contains(r.stderr, "'ostset down "+h.set+" --volumes' removes them") {
			t.Errorf("ostset %v: no note on the deleted set:\n%s", args, r)
		}
	}
	var rows []struct {
		Name       string `json:"name"`
		Set        string `json:"set"`
		SetDeleted bool   `json:"setDeleted"`
	}
	r := h.mustOstset("volumes", h.set, "-o", "json")
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 || !rows[0].SetDeleted || rows[1].Name != "data-"+h.name(1) {
		t.Errorf("volumes -o json: %+v, %v\n%s", rows, err, r)
	}
	h.mustOstset("down", h.set, "--volumes")
	if r := h.ostset("volumes", h.set); r.code != 2 || !strings.Contains(r.stderr, "unknown set") {
		t.Errorf("volumes of a set gone with its volumes: %s; want exit 2, unknown set", r)
	}
}
