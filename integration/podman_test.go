//go:build integration

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// podman is a private Podman API service (Podman's Docker-compatible
// socket), with storage, networks and runtime files of its own in dir, so
// that it touches nothing of the machine's Podman or Docker.
type podman struct {
	t    *testing.T
	dir  string
	host string // DOCKER_HOST of the socket
	cmd  *exec.Cmd
}

func (p *podman) global() []string {
	return []string{"--root", filepath.Join(p.dir, "root"), "--runroot", filepath.Join(p.dir, "run"),
		"--tmpdir", filepath.Join(p.dir, "tmp"), "--cgroup-manager", "cgroupfs", "--events-backend", "file",
		"--network-config-dir", filepath.Join(p.dir, "cni")}
}

func (p *podman) env() []string {
	return append(os.Environ(), "CONTAINERS_CONF="+filepath.Join(p.dir, "containers.conf"))
}

// startPodman starts `podman system service` on a socket in a directory of
// its own and loads the test images into it. Without podman the test is
// skipped, except in CI (CI=true), where it fails.
func startPodman(t *testing.T) *podman {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		lacking(t, "podman is not installed")
	}
	if _, err := os.Stat("/usr/lib/cni/dnsname"); err != nil { // DNS names on Podman's CNI networks
		lacking(t, "the CNI dnsname plugin (golang-github-containernetworking-plugin-dnsname) is not installed")
	}
	dir, err := os.MkdirTemp("", "ostset-podman-")
	if err != nil {
		t.Fatal(err)
	}
	p := &podman{t: t, dir: dir, host: "unix://" + filepath.Join(dir, "podman.sock")}
	for _, d := range []string{"cni", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// This machine's limits are below Podman's default rlimits ("error
	// setting rlimit type 6"): no default ulimits.
	if err := os.WriteFile(filepath.Join(dir, "containers.conf"), []byte("[containers]\ndefault_ulimits = []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command("podman", append(p.global(), "system", "service", "--time=0", p.host)...)
	p.cmd.Env = p.env()
	p.cmd.Stderr, err = os.Create(filepath.Join(dir, "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if out, err := p.docker("version", "--format", "{{range .Server.Components}}{{.Name}};{{end}}"); err == nil {
			if !strings.Contains(out, "Podman Engine") {
				t.Fatalf("the socket is not Podman's: %s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "service.log"))
			t.Fatalf("podman system service did not answer in 30 s:\n%s", log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	save := exec.Command("docker", "save", imageV1, imageV2)
	load := exec.Command("podman", append(p.global(), "load")...)
	load.Env = p.env()
	pipe, err := save.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	load.Stdin = pipe
	if err := save.Start(); err != nil {
		t.Fatal(err)
	}
	if out, err := load.CombinedOutput(); err != nil {
		t.Fatalf("podman load: %v\n%s", err, out)
	}
	if err := save.Wait(); err != nil {
		t.Fatalf("docker save: %v", err)
	}
	return p
}

// docker runs the docker CLI against the Podman socket.
func (p *podman) docker(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+p.host)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (p *podman) mustDocker(args ...string) string {
	p.t.Helper()
	out, err := p.docker(args...)
	if err != nil {
		p.t.Fatalf("docker %v (Podman): %v\n%s", args, err, out)
	}
	return out
}

// stop ends the service and removes everything it held.
func (p *podman) stop() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	}
	reset := exec.Command("podman", append(p.global(), "system", "reset", "--force")...)
	reset.Env = p.env()
	if out, err := reset.CombinedOutput(); err != nil {
		p.t.Logf("podman system reset: %v\n%s", err, out)
	}
	if err := os.RemoveAll(p.dir); err != nil {
		p.t.Logf("remove %s: %v", p.dir, err)
	}
}

const podmanSpec = `
name: {{SET}}
replicas: 3
network: {{NET}}
serviceName: svc-{{SET}}
podManagementPolicy: OrderedReady
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  env: {ENV}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 10s
    timeout: 2s
    retries: 3
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

// The core of ostset on Podman's Docker-compatible API (Debian's 4.3.1,
// which runs no healthchecks without systemd and lists no health): an
// OrderedReady rollout gated on each replica's healthcheck, which ostset
// runs itself; per-ordinal volumes; DNS names; a rolling update; scale;
// down. And a replica whose healthcheck never passes holds the rollout.
// Its time is bounded: the service must answer within 30 s, each docker
// call within a minute, each ostset command within 3 minutes (harness).
func TestPodmanCore(t *testing.T) {
	t.Parallel()
	p := startPodman(t)
	h := newHarnessPrefix(t, "pm")
	h.env = []string{"DOCKER_HOST=" + p.host}

	spec := h.writeSpec(podmanSpec, imageV1, "{ENV}", "{START_DELAY: 1s}")
	up := h.mustOstset("up", "-f", spec).stdout
	for i := range 2 { // in order, each after the one before is ready
		ready, next := strings.Index(up, h.name(i)+" ready"), strings.Index(up, h.name(i+1)+" created")
		if ready < 0 || next < 0 || ready > next {
			t.Fatalf("%s created before %s was ready:\n%s", h.name(i+1), h.name(i), up)
		}
	}
	var s proberStatus
	h.statusJSON(&s)
	if s.ReadyReplicas != 3 {
		t.Fatalf("status %+v, want 3 ready", s)
	}
	for _, c := range s.Containers { // Podman never judged: the readiness is ostset's probe
		if c.Health != "starting" || c.ReadyBy != "probe" {
			t.Errorf("%s: health %q, readyBy %q; want starting, probe", c.Name, c.Health, c.ReadyBy)
		}
	}

	// Per-ordinal volumes and DNS names.
	p.mustDocker("exec", h.name(0), "/web", "write", "/data/mark", "zero")
	vols := strings.Fields(p.mustDocker("volume", "ls", "-q", "--filter", "label=io.ostset.set="+h.set))
	if len(vols) != 3 {
		t.Errorf("volumes %v, want one per ordinal", vols)
	}
	if out := p.mustDocker("exec", h.name(0), "/web", "lookup", h.name(2)+".svc-"+h.set); out == "" {
		t.Errorf("%s.svc-%s does not resolve", h.name(2), h.set)
	}

	// A rolling update: every replica replaced, the volume kept.
	spec = h.writeSpec(podmanSpec, imageV2, "{ENV}", "{START_DELAY: 1s}")
	h.mustOstset("up", "-f", spec)
	for i := range 3 {
		if img := p.mustDocker("inspect", "-f", "{{.Config.Image}}", h.name(i)); !strings.Contains(img, "web:v2") {
			t.Errorf("%s runs %s after the update", h.name(i), img)
		}
	}
	if got := p.mustDocker("exec", h.name(0), "/web", "cat", "/data/mark"); got != "zero" {
		t.Errorf("%s's volume after the update holds %q", h.name(0), got)
	}

	// Scale down, then down.
	h.mustOstset("scale", h.set, "--replicas", "1")
	if names := strings.Fields(p.mustDocker("ps", "-aq", "--filter", "label=io.ostset.set="+h.set)); len(names) != 1 {
		t.Errorf("%d containers after scale to 1", len(names))
	}
	h.mustOstset("down", h.set)
	if ids := p.mustDocker("ps", "-aq", "--filter", "label=io.ostset.set="+h.set); ids != "" {
		t.Errorf("containers left after down: %s", ids)
	}

	// A replica that never passes its healthcheck is never ready on Podman
	// either, and the next ordinal is not created.
	bad := newHarnessPrefix(t, "pm")
	bad.env = h.env
	r := bad.ostset("up", "-f", bad.writeSpec(podmanSpec, imageV1, "{ENV}", "{UNHEALTHY: \"1\"}"), "--timeout", "4s")
	if r.code != 3 {
		t.Fatalf("up: %s, want exit 3 (timeout)", r)
	}
	var bs proberStatus
	bad.statusJSON(&bs)
	if bs.ReadyReplicas != 0 || len(bs.Containers) != 1 {
		t.Fatalf("status %+v, want %s alone, not ready", bs, bad.name(0))
	}
	bad.mustOstset("down", bad.set)
}
