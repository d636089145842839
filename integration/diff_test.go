//go:build integration

package integration

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot lists every file under dir with a digest of its content and its
// modification time: what a command that changes nothing leaves as it was.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%x %s", sha256.Sum256(data), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diff and up --dry-run on the real engine: no change is exit 0; a new image
// is exit 1 with every ordinal listed as replaced, highest first; neither
// touches a container, volume, network or the state directory, nor pulls.
func TestDiffAndDryRunChangeNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1))
	ids, v1 := h.ids(), h.revisions()[h.name(0)]
	volumes := strings.Join(h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set), " ")
	// The networks the test's set files could make (others' tests make theirs meanwhile).
	networks := strings.Join(h.dockerLines("network", "ls", "-q", "--filter", "name="+h.set), " ")
	state := snapshot(t, h.stateDir)
	stop := h.recordEvents()

	if r := h.ostset("diff", "-f", h.writeSpec(baseSpec, imageV1)); r.code != 0 || !strings.HasPrefix(r.stdout, h.set+": no change, revision "+v1) {
		t.Errorf("diff of the running file: %s", r)
	}
	file := h.writeSpec(baseSpec, imageV2)
	for _, cmd := range [][]string{{"diff", "-f", file}, {"up", "--dry-run", "-f", file}} {
		r := h.ostset(cmd...)
		if r.code != 1 || r.stderr != "" {
			t.Errorf("%v with a new image: %s", cmd, r)
		}
		at := -1
		for _, want := range []string{
			h.set + ": revision " + v1 + " -> ",
			"  template: image ostset-test/web:v1 -> :v2",
			"  ~ replace " + h.name(2) + ": " + v1 + " -> ",
			"  ~ replace " + h.name(1) + ": " + v1 + " -> ",
			"  ~ replace " + h.name(0) + ": " + v1 + " -> ",
		} {
			i := strings.Index(r.stdout, want)
			if i <= at {
				t.Errorf("%v: %q missing or out of order in\n%s", cmd, want, r.stdout)
			}
			at = i
		}
	}
	missing := "ostset-test/web:not-here-" + h.set
	r := h.ostset("diff", "-f", h.writeSpec(baseSpec, missing))
	if r.code != 1 || !strings.Contains(r.stdout, "-> a new revision") || !strings.Contains(r.stdout, "image "+missing+" is not present locally") {
		t.Errorf("diff with an image not present locally: %s", r)
	}
	if _, err := h.tryDocker("image", "inspect", missing); err == nil {
		t.Errorf("diff pulled %s", missing)
	}

	for _, e := range stop() {
		// Docker's healthchecks go on, and with them the readiness the
		// recorder derives from them (readyEvent): neither is an act of diff.
		if !strings.HasPrefix(e.Action, "health_status") && e.Action != readyEvent {
			t.Errorf("diff made Docker act: %s", e)
		}
	}
	for name, id := range h.ids() {
		if ids[name] != id {
			t.Errorf("%s is another container after diff", name)
		}
	}
	h.allAt(v1)
	if got := strings.Join(h.dockerLines("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set), " "); got != volumes {
		t.Errorf("volumes %s after diff, were %s", got, volumes)
	}
	if got := strings.Join(h.dockerLines("network", "ls", "-q", "--filter", "name="+h.set), " "); got != networks {
		t.Errorf("networks changed by diff: %s, were %s", got, networks)
	}
	after := snapshot(t, h.stateDir)
	for path, was := range state {
		if after[path] != was {
			t.Errorf("diff changed %s", path)
		}
	}
	for path := range after {
		if _, ok := state[path]; !ok {
			t.Errorf("diff made %s", path)
		}
	}
}

// A new set previews as created whole: its replicas, volumes and network;
// none of them is made, and the state directory stays empty.
func TestDiffOfANewSetShowsEverythingCreated(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.ostset("diff", "-f", h.writeSpec(baseSpec, imageV1))
	for _, want := range []string{h.set + ": new set, revision " + h.set + "-", "  + create  " + h.name(0) + " at ", "  + create  " + h.name(2) + " at ",
		"  + create volume data-" + h.name(2), "  + create network " + h.network} {
		if r.code != 1 || !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in: %s", want, r)
		}
	}
	if len(h.replicaNames()) > 0 || len(h.dockerLines("network", "ls", "-q", "--filter", "name=^"+h.network+"$")) > 0 {
		t.Errorf("diff made containers or the network")
	}
	if files := snapshot(t, h.stateDir); len(files) > 0 {
		t.Errorf("diff wrote the state directory: %v", files)
	}
}
