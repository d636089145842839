//go:build integration

package integration

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Two state directories on one engine (say, ostset and sudo ostset): the second
// one never takes over, stops or removes the first one's set, also not with
// down --volumes, and says whose it is and how to take it over; adopting it on
// purpose then works without restarting anything.
func TestTwoStateDirectoriesOneSet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	second := t.TempDir()
	other := func(args ...string) result {
		h.t.Helper()
		return h.ostset(append([]string{"--state-dir", second}, args...)...)
	}

	// The second state directory knows the set from a time when Docker held
	// nothing of it; then the first one creates it.
	other("up", "-f", h.writeSpec(scaledSpec(0, ""), imageV1))
	file := h.writeSpec(scaledSpec(2, ""), imageV1)
	h.mustOstset("up", "-f", file)
	idData, err := os.ReadFile(filepath.Join(h.stateDir, "id"))
	if err != nil {
		t.Fatal(err)
	}
	firstID := strings.TrimSpace(string(idData))
	labels := h.inspect(h.name(0)).Config.Labels
	if labels["io.ostset.owner"] != firstID || labels["io.ostset.state-dir"] != h.stateDir {
		t.Fatalf("%s owner labels %v, want id %s and state dir %s", h.name(0), labels, firstID, h.stateDir)
	}
	if got := h.docker("volume", "inspect", "-f", `{{index .Labels "io.ostset.owner"}}`, "data-"+h.name(1)); got != firstID {
		t.Errorf("volume data-%s owner label %q, want %s", h.name(1), got, firstID)
	}
	before := h.setObjects()
	held := "belong to state directory " + h.stateDir + " (id " + firstID + ")"

	// up fails at once, stores nothing and says whose the set is and the way out.
	r := other("up", "-f", file, "--timeout", "2m")
	if r.code != 1 || !strings.Contains(r.stderr, held) || !strings.Contains(r.stderr, "ostset up --adopt") ||
		!strings.Contains(r.stderr, "ostset down "+h.set+" --cascade=orphan --state-dir "+h.stateDir) || strings.Contains(r.stdout, "created") {
		t.Fatalf("up from the second state directory: want exit 1 naming the owner and --adopt, got %s", r)
	}
	// A change through the loop is stored, but its wait ends at once, saying why.
	r = other("scale", h.set, "--replicas", "2", "--timeout", "2m")
	if r.code != 1 || !strings.Contains(r.stderr, h.set+": set "+h.set+": container "+h.name(0)) || !strings.Contains(r.stderr, held) {
		t.Errorf("scale from the second state directory: want exit 1 naming the owner, got %s", r)
	}
	var status struct {
		Conflicts       []string
		ConflictDetails []struct {
			Kind    string
			Owner   struct{ ID, StateDir string }
			Resolve string
		}
	}
	if err := json.Unmarshal([]byte(other("status", h.set, "-o", "json").stdout), &status); err != nil {
		t.Fatal(err)
	}
	wantConflicts := []string{h.name(0), h.name(1), "data-" + h.name(0), "data-" + h.name(1)}
	if !slices.Equal(status.Conflicts, wantConflicts) || len(status.ConflictDetails) != 4 ||
		status.ConflictDetails[3].Owner.StateDir != h.stateDir || status.ConflictDetails[3].Owner.ID != firstID ||
		!strings.Contains(status.ConflictDetails[3].Resolve, "--adopt") {
		t.Errorf("status from the second state directory: %+v, want conflicts %v", status, wantConflicts)
	}
	if r := other("get", h.set); !strings.Contains(r.stderr, "conflict: container "+h.name(0)) || !strings.Contains(r.stderr, "--adopt") {
		t.Errorf("get does not show the conflicts: %s", r)
	}
	if r := other("describe", h.set); !strings.Contains(r.stdout, "conflict: volume data-"+h.name(1)+" belongs to set "+h.set+" of state directory "+h.stateDir) {
		t.Errorf("describe does not show the conflicts: %s", r)
	}
	r = other("down", h.set, "--volumes")
	if r.code != 0 || !strings.Contains(r.stdout, "volume data-"+h.name(0)+" left alone: it belongs to state directory "+h.stateDir) {
		t.Errorf("down --volumes from the second state directory: %s", r)
	}
	if after := h.setObjects(); !maps.Equal(after, before) {
		t.Fatalf("the second state directory touched the first one's set:\nbefore %v\nafter  %v", before, after)
	}
	h.mustOstset("rollout", "status", h.set, "--timeout", "30s")

	// Taking it over on purpose: forget it in the first, adopt it in the second.
	h.mustOstset("down", h.set, "--cascade=orphan")
	r = other("up", "-f", file, "--adopt", "--timeout", "1m")
	if r.code != 0 || !strings.Contains(r.stdout, "adopted the set's containers and volumes of state directory "+h.stateDir) {
		t.Fatalf("up --adopt: %s", r)
	}
	if after := h.setObjects(); !maps.Equal(after, before) {
		t.Errorf("adoption recreated or restarted something:\nbefore %v\nafter  %v", before, after)
	}
	if r := other("describe", h.set); !strings.Contains(r.stdout, "Adopted from:    "+h.stateDir+" (id "+firstID+")") {
		t.Errorf("describe does not name the adopted owner: %s", r)
	}
	if r := other("down", h.set, "--volumes"); r.code != 0 {
		t.Fatalf("down --volumes after adoption: %s", r)
	}
	if left := h.setObjects(); len(left) != 0 {
		t.Errorf("down --volumes after adoption left %v", left)
	}
}

// setObjects is what Docker holds of the set: each container's ID and start
// time, and each volume's creation time.
func (h *harness) setObjects() map[string]string {
	h.t.Helper()
	objs := map[string]string{}
	for _, name := range h.replicaNames() {
		objs[name] = h.docker("inspect", "-f", "{{.Id}} {{.State.StartedAt}}", name)
	}
	for _, v := range h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set) {
		objs[v] = h.docker("volume", "inspect", "-f", "{{.CreatedAt}}", v)
	}
	return objs
}
