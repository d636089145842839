//go:build integration

package integration

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newVfHarness is a harness whose set name starts with vf.
func newVfHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessPrefix(t, "vf")
}

func (h *harness) volumeNames() []string {
	vols := h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set)
	slices.Sort(vols)
	return vols
}

// The volumes ostset down kept are not removed by the up that brings the set
// back, although whenScaled is Delete: only a scale-down removes volumes, and
// only those of the replicas it removed.
func TestVfUpKeepsVolumesDownKept(t *testing.T) {
	t.Parallel()
	const parallel = "podManagementPolicy: Parallel\n"
	t.Run("scale up, down, up", func(t *testing.T) {
		h := newVfHarness(t)
		file := h.writeSpec(scaledSpec(2, parallel+"persistentVolumeClaimRetentionPolicy: {whenDeleted: Retain, whenScaled: Delete}\n"), imageV1)
		h.mustOstset("up", "-f", file)
		h.mustOstset("scale", h.set, "--replicas", "4")
		h.docker("exec", h.name(3), "/web", "write", "/data/note", "kept")
		down := h.mustOstset("down", h.set)
		want := []string{"data-" + h.name(0), "data-" + h.name(1), "data-" + h.name(2), "data-" + h.name(3)}
		if !strings.Contains(down.stdout, "volumes kept: "+strings.Join(want, ", ")) {
			t.Fatalf("down does not say it keeps %v:\n%s", want, down)
		}
		up := h.mustOstset("up", "-f", file)
		if strings.Contains(up.stdout, "removed (whenScaled") {
			t.Errorf("up removed a kept volume:\n%s", up)
		}
		if got := h.volumeNames(); !slices.Equal(got, want) {
			t.Errorf("volumes %v after up, want %v", got, want)
		}
		// A scale-down now removes only what it condemned, and the data of the
		// kept volume comes back with its ordinal.
		h.mustOstset("scale", h.set, "--replicas", "4")
		if got := h.docker("exec", h.name(3), "/web", "cat", "/data/note"); got != "kept" {
			t.Errorf("data in data-%s after down and up: %q", h.name(3), got)
		}
		h.mustOstset("scale", h.set, "--replicas", "3")
		if got := h.volumeNames(); !slices.Equal(got, want[:3]) {
			t.Errorf("volumes %v after a scale-down to 3, want %v", got, want[:3])
		}
	})
	t.Run("down under Retain, up with replicas 1 and Delete", func(t *testing.T) {
		h := newVfHarness(t)
		h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, parallel), imageV1))
		h.mustOstset("down", h.set)
		want := []string{"data-" + h.name(0), "data-" + h.name(1), "data-" + h.name(2)}
		up := h.mustOstset("up", "-f", h.writeSpec(scaledSpec(1, parallel+"persistentVolumeClaimRetentionPolicy:\n  whenScaled: Delete\n"), imageV1))
		if strings.Contains(up.stdout, "removed (whenScaled") {
			t.Errorf("up removed a kept volume:\n%s", up)
		}
		if got := h.volumeNames(); !slices.Equal(got, want) {
			t.Errorf("volumes %v after up, want %v", got, want)
		}
	})
}

// down --volumes interrupted with Ctrl-C says what it recorded and how to
// finish or cancel it; the plain down after it says that it finishes a delete
// that removes the volumes, before it removes any.
func TestVfInterruptedDownVolumesIsSaid(t *testing.T) {
	t.Parallel()
	h := newVfHarness(t)
	// The replicas ignore SIGUSR1, so each stop lasts the grace period and the
	// interrupt lands while down waits for one.
	spec := strings.Replace(strings.Replace(baseSpec, "terminationGracePeriodSeconds: 2", "terminationGracePeriodSeconds: 5", 1),
		"  image: {{IMAGE}}\n", "  image: {{IMAGE}}\n  stopSignal: SIGUSR1\n", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	cmd, stderr := h.started(h.name(2)+" removed", "down", h.set, "--volumes")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("down interrupted: %v, want exit 130\n%s", err, stderr)
	}
	vols := "data-" + h.name(0) + ", data-" + h.name(1) + ", data-" + h.name(2)
	for _, want := range []string{"the delete of " + h.set + " is recorded (its volumes " + vols + " are removed too)",
		"'ostset down " + h.set + "' finishes it", "'ostset up -f FILE' cancels it"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr of the interrupted down lacks %q:\n%s", want, stderr)
		}
	}
	r := h.mustOstset("down", h.set)
	said := strings.Index(r.stdout, "finishing the delete of "+h.set+" that an earlier 'ostset down --volumes' (or whenDeleted: Delete) began: its volumes "+vols+" are removed too")
	removed := strings.Index(r.stdout, "volume data-"+h.name(0)+" removed")
	if said < 0 || removed < 0 || said > removed {
		t.Errorf("down after the interrupted down --volumes does not say it removes the volumes before it does:\n%s", r)
	}
	if got := h.volumeNames(); len(got) != 0 {
		t.Errorf("volumes left: %v", got)
	}
}

// anonymousVolume is the name of the anonymous volume mounted at dest in the
// container.
func (h *harness) anonymousVolume(container, dest string) string {
	h.t.Helper()
	for _, m := range h.inspectMounts(container) {
		if m.Destination == dest && m.Type == "volume" {
			// Anonymous volumes carry no label to clean up by: one a failed
			// test leaves is removed by name.
			h.t.Cleanup(func() {
				if _, err := h.tryDocker("volume", "inspect", m.Name); err == nil {
					h.dockerQuiet("volume", "rm", m.Name)
				}
			})
			return m.Name
		}
	}
	h.t.Fatalf("%s has no volume at %s", container, dest)
	return ""
}

type mount struct{ Type, Name, Destination string }

func (h *harness) inspectMounts(container string) []mount {
	h.t.Helper()
	var ms []mount
	if err := json.Unmarshal([]byte(h.docker("inspect", "-f", "{{json .Mounts}}", container)), &ms); err != nil {
		h.t.Fatal(err)
	}
	return ms
}

// An image VOLUME that no claim covers: up warns about it (and not about one a
// claim covers), and the anonymous volume Docker makes there goes with the
// replica ostset removes, while the claim's named volume stays.
func TestVfImageVolumeWarnedAndRemoved(t *testing.T) {
	t.Parallel()
	h := newVfHarness(t)
	image := h.set + "-anon:test"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM "+imageV1+"\nVOLUME /cache\nVOLUME /data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.docker("build", "-q", "-t", image, dir)
	t.Cleanup(func() { h.dockerQuiet("rmi", image) })

	up := h.mustOstset("up", "-f", h.writeSpec(scaledSpec(1, ""), image))
	if !strings.Contains(up.stderr, "declares VOLUME /cache, which no volumeClaimTemplates mountPath, volumeMounts target or tmpfs covers") ||
		!strings.Contains(up.stderr, "its data is lost at each replacement") || strings.Contains(up.stderr, "VOLUME /data") {
		t.Errorf("up does not warn about /cache alone:\n%s", up)
	}
	first := h.anonymousVolume(h.name(0), "/cache")
	h.docker("exec", h.name(0), "/web", "write", "/data/note", "kept")
	h.mustOstset("rollout", "restart", h.set)
	if out, err := h.tryDocker("volume", "inspect", first); err == nil {
		t.Errorf("the anonymous volume %s of the replaced replica is left: %s", first, out)
	}
	if got := h.docker("exec", h.name(0), "/web", "cat", "/data/note"); got != "kept" {
		t.Errorf("the claim's data after the restart: %q", got)
	}
	second := h.anonymousVolume(h.name(0), "/cache")
	h.mustOstset("down", h.set, "--volumes")
	if out, err := h.tryDocker("volume", "inspect", second); err == nil {
		t.Errorf("the anonymous volume %s is left after down --volumes: %s", second, out)
	}
}
