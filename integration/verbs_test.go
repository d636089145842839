//go:build integration

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kubectl's and compose's words on the real engine: apply creates the set,
// wait returns once a replica (then the set) is ready, ps lists every
// replica, top their CPU and memory, cp copies into a replica and out,
// restart replaces each container, delete removes them; unknown
// words and kinds answer with what to type instead (exit 2).
func TestKubectlAndComposeVerbs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := h.writeSpec(baseSpec, imageV1)
	h.mustOstset("apply", "-f", spec, "--wait=false")
	if r := h.mustOstset("wait", "--for=condition=Ready", h.name(0), "--timeout", "2m"); !strings.Contains(r.stdout, h.name(0)+" condition met") {
		t.Fatalf("wait %s: %s", h.name(0), r)
	}
	if why := h.notReadyReason(h.name(0)); why != "" {
		t.Fatalf("wait returned before %s was ready: %s", h.name(0), why)
	}
	h.mustOstset("wait", "--for=condition=Ready", h.set, "--timeout", "2m")
	ps := h.mustOstset("ps")
	for i := range 3 {
		if !strings.Contains(ps.stdout, h.name(i)) {
			t.Fatalf("ps lacks %s: %s", h.name(i), ps)
		}
	}
	top := h.mustOstset("top", h.set)
	for i := range 3 {
		if !strings.Contains(top.stdout, h.name(i)+"  ") || !strings.Contains(top.stdout, "Mi\n") {
			t.Fatalf("top lacks %s: %s", h.name(i), top)
		}
	}
	if r := h.mustOstset("logs", h.name(0), "--since", "1h"); !strings.Contains(r.stdout, "listening") {
		t.Fatalf("logs --since 1h: %s", r)
	}
	if r := h.mustOstset("logs", h.name(0), "--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)); r.stdout != "" {
		t.Fatalf("logs --since an hour ahead printed lines: %s", r)
	}
	local := filepath.Join(t.TempDir(), "seed.txt")
	if err := os.WriteFile(local, []byte("seed of "+h.set+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustOstset("cp", local, h.name(1)+":/data/")
	back := t.TempDir()
	h.mustOstset("cp", h.name(1)+":/data/seed.txt", back)
	if b, err := os.ReadFile(filepath.Join(back, "seed.txt")); err != nil || string(b) != "seed of "+h.set+"\n" {
		t.Fatalf("cp into %s and back: %v %q", h.name(1), err, b)
	}
	before := h.inspect(h.name(2)).ID
	h.mustOstset("restart", h.set, "--timeout", "3m")
	if after := h.inspect(h.name(2)).ID; after == before {
		t.Fatalf("restart kept %s's container %s", h.name(2), before)
	}
	if r := h.ostset("get", "pods"); r.code != 2 || !strings.Contains(r.stderr, "the sets are: "+h.set) {
		t.Fatalf("get pods: %s", r)
	}
	if r := h.ostset("aply", "-f", spec); r.code != 2 || !strings.Contains(r.stderr, "did you mean: ostset apply -f "+spec) {
		t.Fatalf("aply -f: %s", r)
	}
	h.mustOstset("delete", h.set)
	for i := range 3 {
		if h.exists(h.name(i)) {
			t.Fatalf("delete left %s", h.name(i))
		}
	}
}

// docker ostset: the docker CLI finds ostset in cli-plugins as docker-ostset,
// lists it, completes its commands, and runs them on the same engine.
func TestDockerCLIPlugin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := t.TempDir()
	plugins := filepath.Join(cfg, "cli-plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.Abs(ostsetBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(plugins, "docker-ostset")); err != nil {
		t.Fatal(err)
	}
	docker := func(args ...string) (string, error) {
		cmd := exec.Command("docker", args...)
		cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+cfg, "OSTSET_STATE_DIR="+h.stateDir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := docker("--help"); err != nil || !strings.Contains(out, "ostset*") || !strings.Contains(out, "Kubernetes StatefulSet semantics") {
		t.Fatalf("docker --help does not list the plugin: %v\n%s", err, out)
	}
	if out, err := docker("__complete", "ostset", "ge"); err != nil || !strings.HasPrefix(out, "get\t") {
		t.Fatalf("docker's completion of ostset ge: %v\n%s", err, out)
	}
	spec := h.writeSpec(baseSpec, imageV1)
	if out, err := docker("ostset", "up", "-f", spec, "--timeout", "3m"); err != nil {
		t.Fatalf("docker ostset up: %v\n%s", err, out)
	}
	out, err := docker("ostset", "get", h.set)
	if err != nil || !strings.Contains(out, h.name(2)) {
		t.Fatalf("docker ostset get: %v\n%s", err, out)
	}
	if !h.exists(h.name(2)) {
		t.Fatalf("docker ostset up made no %s", h.name(2))
	}
	if out, err := docker("ostset", "delete", h.set); err != nil {
		t.Fatalf("docker ostset delete: %v\n%s", err, out)
	}
}
