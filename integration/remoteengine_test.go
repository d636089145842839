//go:build integration

package integration

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// engineImage is a Docker engine in a container (Debian's docker.io on the
// project's Debian base image), made by scripts/build-engine-image.sh (make
// engine-image, part of make test-integration).
const engineImage = "ostset-test/dockerd:20"

// remoteEngine starts a dockerd in a container of the machine's engine,
// reached over tcp://127.0.0.1: an engine whose files are not this
// machine's, as Docker Desktop's VM or a remote host is. It is labelled with
// h's set, so the harness removes it. It returns its DOCKER_HOST.
func (h *harness) remoteEngine() string {
	h.t.Helper()
	if exec.Command("docker", "image", "inspect", engineImage).Run() != nil {
		build := exec.Command(filepath.Join("..", "scripts", "build-engine-image.sh"))
		if out, err := build.CombinedOutput(); err != nil {
			h.t.Fatalf("build %s: %v\n%s", engineImage, err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	// --privileged is refused on these machines; these capabilities are
	// enough (see DOCKER-NOTES).
	h.docker("run", "-d", "--name", h.set+"-engine", "--label", "io.ostset.test="+h.set,
		"--cap-add", "SYS_ADMIN", "--cap-add", "NET_ADMIN", "--cap-add", "SYS_PTRACE", "--cap-add", "MKNOD",
		"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
		"--cgroupns", "host", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw", "--tmpfs", "/var/lib/docker:exec",
		"-p", "127.0.0.1:"+strconv.Itoa(port)+":2375", engineImage)
	host := "tcp://127.0.0.1:" + strconv.Itoa(port)
	// dockerd 20.10 waits about 15 s on purpose before it listens on TCP
	// without TLS: wait for its answer, within a bound.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for {
		v := exec.CommandContext(ctx, "docker", "-H", host, "version", "--format", "{{.Server.Version}}")
		if out, err := v.CombinedOutput(); err == nil {
			h.t.Logf("engine %s at %s", strings.TrimSpace(string(out)), host)
			break
		}
		select {
		case <-ctx.Done():
			logs, _ := h.tryDocker("logs", "--tail", "20", h.set+"-engine")
			h.t.Fatalf("the engine in %s did not answer at %s within 90 s:\n%s", h.set+"-engine", host, logs)
		case <-time.After(500 * time.Millisecond):
		}
	}
	return host
}

// loadImage copies a local image into the engine at host.
func (h *harness) loadImage(host, image string) {
	h.t.Helper()
	load := exec.Command("sh", "-c", "docker save "+image+" | docker -H "+host+" load")
	if out, err := load.CombinedOutput(); err != nil {
		h.t.Fatalf("load %s into %s: %v\n%s", image, host, err, out)
	}
}

// On an engine whose files are not this machine's, a StatefulSet with a
// tcpSocket readinessProbe and Secret and ConfigMap volumes converges: the
// probe and the files reach the replica through the engine's API, where a
// bind mount of this machine's paths failed ("bind source path does not
// exist").
func TestRemoteEngineProbeAndSecretVolume(t *testing.T) {
	t.Parallel()
	ensureBusyboxImage(t)
	h := newKFHarness(t)
	host := h.remoteEngine()
	h.loadImage(host, busyboxImage)
	h.env = append(h.env, "DOCKER_HOST="+host)
	path := h.volumeManifest("secret", "      securityContext: {runAsUser: 1000}\n")
	r := h.mustOstset("up", "-f", path, "--timeout", "120s")
	if strings.Contains(r.stdout+r.stderr, "bind source") {
		t.Errorf("up spoke of a bind source:\n%s", r)
	}
	remote := func(args ...string) (string, error) {
		out, err := exec.Command("docker", append([]string{"-H", host}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	name := h.name(0)
	if why := h.notReadyReason(name); why != "" {
		t.Errorf("up returned with %s not ready: %s", name, why)
	}
	// The remote engine's own healthcheck runs the same probe: it passes too
	// (Docker runs it one interval after the start, so wait for it).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		health, err := remote("inspect", "--format", "{{.State.Health.Status}}", name)
		if err == nil && health == "healthy" {
			break
		}
		if err != nil || health != "starting" || time.Now().After(deadline) {
			t.Errorf("%s: health %q, %v; want healthy", name, health, err)
			break
		}
	}
	if got, err := remote("exec", name, "/bin/busybox", "cat", "/etc/secret/password"); err != nil || got != "s3cr3t" {
		t.Errorf("user 1000 reads the Secret on the remote engine: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "manifest-volumes", h.set, "secret", "password")); err != nil {
		t.Errorf("the Secret's file is not kept in the state directory: %v", err)
	}
	h.mustOstset("down", h.set)
}
