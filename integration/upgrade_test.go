//go:build integration

package integration

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// upgradeFrom is the release an upgrade in place starts from: main before the
// state directory recorded its format (format 0).
const upgradeFrom = "3ab112193cbd01aaf1660a5741fe968837704e3a"

// oldOstset builds ostset at upgradeFrom from this repository's history
// (OSTSET_OLD_BIN names a binary built already).
func oldOstset(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("OSTSET_OLD_BIN"); bin != "" {
		return bin
	}
	if err := exec.Command("git", "cat-file", "-e", upgradeFrom+"^{commit}").Run(); err != nil {
		t.Skipf("commit %s is not in this clone (a shallow one?): set OSTSET_OLD_BIN", upgradeFrom)
	}
	src := t.TempDir()
	archive := exec.Command("sh", "-c", `git archive "$1" | tar -x -C "$2"`, "sh", upgradeFrom, src)
	archive.Dir = ".." // the repository's root: in a subdirectory, git archive takes only that
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v %s", upgradeFrom, err, out)
	}
	bin := filepath.Join(src, "ostset-old")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/ostset")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build ostset at %s: %v %s", upgradeFrom, err, out)
	}
	return bin
}

// A set the previous release made and runs is taken over by this one in
// place: the state directory is backed up and its format recorded once, no
// replica is recreated by up, reconcile or the daemon, and the next change
// rolls as usual with every volume's data kept.
func TestEfUpgradeInPlace(t *testing.T) {
	t.Parallel()
	old := oldOstset(t)
	h := newNamedHarness(t, "efu", filepath.Join(t.TempDir(), "state"))
	file := h.writeSpec(scaledSpec(2, ""), imageV1)
	cmd := exec.Command(old, "up", "-f", file)
	cmd.Env = append(os.Environ(), "OSTSET_STATE_DIR="+h.stateDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the previous release's up: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "format")); err == nil {
		t.Fatalf("the previous release wrote a format record: %s is not the release before it", upgradeFrom)
	}
	before := h.ids()
	oldState, err := os.ReadFile(filepath.Join(h.stateDir, "sets", h.set+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for ord := range 2 {
		h.docker("exec", h.name(ord), "/web", "write", "/data/marker", h.name(ord))
	}

	h.mustOstset("get", h.set)
	if r := h.mustOstset("up", "-f", file); !strings.Contains(r.stdout, "unchanged") {
		t.Errorf("up of the same file with this release: %s", r)
	}
	h.mustOstset("reconcile", h.set)
	d := h.startDaemon(nil)
	h.awaitReady(2)
	d.stop()
	if got := h.ids(); !maps.Equal(got, before) {
		t.Errorf("replicas recreated by the upgrade: %v, before %v", got, before)
	}

	var rec struct {
		Format, From int
		Backup       string
	}
	data, err := os.ReadFile(filepath.Join(h.stateDir, "format"))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil || rec.Format != 1 || rec.From != 0 || rec.Backup == "" {
		t.Fatalf("format record %+v (%v)", rec, err)
	}
	if got, err := os.ReadFile(filepath.Join(h.stateDir, rec.Backup, "sets", h.set+".json")); err != nil || string(got) != string(oldState) {
		t.Errorf("the backup does not hold the previous release's state file (%v)", err)
	}
	if backups, _ := filepath.Glob(filepath.Join(h.stateDir, "backups", "*")); len(backups) != 1 {
		t.Errorf("backups %v, want one", backups)
	}

	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(2, ""), imageV2))
	rev := h.checkReplicas(2)
	if rev != h.updateRevision() {
		t.Errorf("replicas at %s, want %s", rev, h.updateRevision())
	}
	for ord := range 2 {
		if got := h.docker("exec", h.name(ord), "/web", "cat", "/data/marker"); got != h.name(ord) {
			t.Errorf("%s: marker %q after the upgrade and an update", h.name(ord), got)
		}
	}
}
