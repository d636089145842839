//go:build integration

package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mountTmpfs mounts a tmpfs of size KiB on a new directory, unmounted when the
// test ends (after everything registered later, the daemon included).
func mountTmpfs(t *testing.T, kib int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir, err := os.MkdirTemp("", "efdisk")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dk,mode=0700", kib), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}

// fillDisk writes zeros to dir/fill until the file system has no space left.
func fillDisk(t *testing.T, dir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "fill"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

func freeDisk(t *testing.T, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, "fill")); err != nil {
		t.Fatal(err)
	}
}

// padEventLog appends a readable event line to the set's log so that the log
// ends 30 bytes short of a page: with the disk full, the next event line is
// written in part.
func (h *harness) padEventLog() {
	h.t.Helper()
	path := filepath.Join(h.stateDir, "events", h.set+".jsonl")
	st, err := os.Stat(path)
	if err != nil {
		h.t.Fatal(err)
	}
	line := func(pad int) []byte {
		return []byte(`{"time":"2026-01-01T00:00:00Z","set":"` + h.set + `","message":"` + strings.Repeat("p", pad) + "\"}\n")
	}
	room := 4096 - int(st.Size()%4096) - 30
	for room < len(line(1)) {
		room += 4096
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Write(line(room - len(line(0)))); err != nil {
		h.t.Fatal(err)
	}
}

// stateReadable fails the test unless every file of the state directory is
// whole: each set's state parses, each line of each event log parses, and no
// temporary file is left.
func (h *harness) stateReadable(when string) {
	h.t.Helper()
	err := filepath.Walk(h.stateDir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(h.stateDir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(info.Name(), ".") && !strings.Contains(rel, "queue"):
			h.t.Errorf("%s: temporary file left: %s", when, rel)
		case strings.HasSuffix(path, ".json"):
			if !json.Valid(data) {
				h.t.Errorf("%s: %s does not parse: %q", when, rel, data)
			}
		case strings.HasSuffix(path, ".jsonl"):
			if len(data) > 0 && data[len(data)-1] != '\n' {
				h.t.Errorf("%s: %s ends within a line: %q", when, rel, data[max(0, len(data)-80):])
			}
			for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if len(data) > 0 && !json.Valid(l) {
					h.t.Errorf("%s: %s line %d does not parse: %q", when, rel, i+1, l)
				}
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

// fullDiskLine fails the test unless the command exited 1 with one line on
// stderr that names the state directory and the cause.
func (h *harness) fullDiskLine(what string, r result) {
	h.t.Helper()
	noCrash(h.t, r)
	want := "state directory " + h.stateDir + " is full (no space left on device)"
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "ostset: ") || !strings.Contains(lines[0], want) {
		h.t.Errorf("%s with the state directory full: want exit 1 and one line %q…, got %s", what, want, r)
	}
}

// The state directory fills up during a rolling update, then stays full for a
// scale, a rollout restart, an up and a daemon's passes, and fills up again
// during a scale-up: each command ends
// with one line naming the directory and the cause (exit 1), the daemon says
// so and keeps running, no state file is left cut short or unreadable, and an
// event line cut short by the full disk is cut off. Once space is freed the
// daemon finishes the rollout by itself and the next command carries on, with
// every replica's data there.
func TestEfFullDisk(t *testing.T) {
	t.Parallel()
	mnt := mountTmpfs(t, 256)
	h := newNamedHarness(t, "efd", filepath.Join(mnt, "state"))
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, ""), imageV1))
	for ord := range 3 {
		h.docker("exec", h.name(ord), "/web", "write", "/data/marker", h.name(ord))
	}
	v1 := h.updateRevision()

	// A rolling update, filled up once its first replica is replaced.
	v2File := h.writeSpec(scaledSpec(3, ""), imageV2)
	up := h.ostsetBackground("up", "-f", v2File)
	up.await(t, "the first replica replaced", func() bool { return strings.Contains(up.stdout(), h.name(2)+" created") })
	fillDisk(t, mnt)
	h.fullDiskLine("up during its rollout", up.wait())
	h.stateReadable("after up")

	h.fullDiskLine("scale", h.ostset("scale", h.set, "--replicas", "4"))
	h.fullDiskLine("rollout restart", h.ostset("rollout", "restart", h.set))
	h.fullDiskLine("up of a changed file", h.ostset("up", "-f", h.writeSpec(scaledSpec(2, ""), imageV1)))
	h.stateReadable("after the commands")
	if st := h.stored(); st.UpdateRevision == v1 || st.Spec.Replicas == nil || *st.Spec.Replicas != 3 {
		t.Errorf("stored state changed by failed commands or the update lost: %+v", st)
	}

	// The daemon: its passes fail to record the rollout's next removal; it
	// says why, keeps running, and the event line it cannot finish is cut off.
	freeDisk(t, mnt)
	h.padEventLog()
	fillDisk(t, mnt)
	d := h.startDaemon(nil, "--resync", "2s")
	d.await("state directory " + h.stateDir + " is full (no space left on device)")
	h.docker("rm", "-f", h.name(0)) // a replica to recreate: an event to record
	time.Sleep(3 * time.Second)
	select {
	case <-d.end:
		t.Fatalf("the daemon exited with the disk full:\n%s", d.out)
	default:
	}
	h.stateReadable("after daemon passes")

	freeDisk(t, mnt)
	h.awaitSettled()
	d.stop()
	h.stateReadable("after space was freed")
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, ""), imageV2))
	v2 := h.checkReplicas(3)
	if v2 == v1 || v2 != h.updateRevision() {
		t.Errorf("replicas at %s, want the update revision (not %s)", v2, v1)
	}
	for ord := range 3 {
		if got := h.docker("exec", h.name(ord), "/web", "cat", "/data/marker"); got != h.name(ord) {
			t.Errorf("%s: marker %q after the full disk", h.name(ord), got)
		}
	}

	// A scale-up, filled up once its new replica is created and before it is
	// ready: the ordinal's volume (kept from an earlier life) holds the test
	// image's "unhealthy" marker until the disk is full, so the readiness the
	// wait records comes after, however fast the replica's probe is.
	h.mustOstset("scale", h.set, "--replicas", "4")
	h.docker("exec", h.name(3), "/web", "touch", "/data/unhealthy")
	h.mustOstset("scale", h.set, "--replicas", "3")
	scale := h.ostsetBackground("scale", h.set, "--replicas", "4")
	scale.await(t, "the new replica created", func() bool { return strings.Contains(scale.stdout(), h.name(3)+" created") })
	fillDisk(t, mnt)
	h.docker("exec", h.name(3), "/web", "rm", "/data/unhealthy")
	h.fullDiskLine("scale during its wait", scale.wait())
	h.stateReadable("after scale")
	freeDisk(t, mnt)
	h.mustOstset("scale", h.set, "--replicas", "4")
	h.checkReplicas(4)
}
