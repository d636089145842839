//go:build integration

package integration

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// registry is a Docker distribution registry (Debian's docker-registry, the
// upstream v2.8) serving on 127.0.0.1, which the engine allows over plain HTTP,
// with its storage in a temporary directory.
type registry struct {
	addr string // 127.0.0.1:PORT
	// config is a Docker CLI config directory with the registry's credentials
	// (when it has users): `docker --config` for pushes, DOCKER_CONFIG for ostset.
	config string
}

// requireTool finds a program the registry tests need. They are skipped
// without it, except in CI (CI=true), where its absence is a failure.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	lacking(t, "%s is not installed (apt-get install %s)", name, pkg)
	return ""
}

// startRegistry runs a registry for the test on a free port and stops it when
// the test ends. With user and password, it requires them (htpasswd basic auth).
func startRegistry(t *testing.T, user, password string) *registry {
	t.Helper()
	bin := requireTool(t, "docker-registry", "docker-registry")
	dir := t.TempDir()
	r := &registry{addr: freeAddr(t)}
	auth := ""
	if user != "" {
		htpasswd := requireTool(t, "htpasswd", "apache2-utils")
		out, err := exec.Command(htpasswd, "-Bbn", user, password).Output()
		if err != nil {
			t.Fatalf("htpasswd: %v", err)
		}
		file := filepath.Join(dir, "htpasswd")
		writeFile(t, file, string(out))
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: ostset-test\n    path: %s\n", file)
		r.config = dockerConfigDir(t, r.addr, user, password)
	}
	config := filepath.Join(dir, "config.yml")
	writeFile(t, config, fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: %s
%s`, filepath.Join(dir, "storage"), r.addr, auth))

	var logs bytes.Buffer
	cmd := exec.Command(bin, "serve", config)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start docker-registry: %v", err)
	}
	var waitErr error
	exited := make(chan struct{}) // closed once waitErr is set
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	r.await(t, exited, func() string { return fmt.Sprintf("%v\n%s", waitErr, &logs) })
	return r
}

// await returns once the registry answers its API root (200, or 401 when it
// requires credentials).
func (r *registry) await(t *testing.T, exited <-chan struct{}, why func() string) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("docker-registry on %s exited: %s", r.addr, why())
		default:
		}
		if resp, err := client.Get("http://" + r.addr + "/v2/"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("docker-registry on %s does not answer after 15s", r.addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr returns 127.0.0.1 with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// dockerConfigDir writes a Docker CLI config directory whose auths entry
// holds the credentials for host, as `docker login` would.
func dockerConfigDir(t *testing.T, host, user, password string) string {
	t.Helper()
	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	writeFile(t, filepath.Join(dir, "config.json"), fmt.Sprintf(`{"auths": {%q: {"auth": %q}}}`, host, auth))
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pushImage builds an image of its own from the test image (a unique label
// gives it its own ID), pushes it to the registry as ref (a repository under
// the set's name with the tag), removes it locally, and returns ref and its ID.
// Every image it builds carries io.ostset.test=<set> and is removed, with any
// copy pulled since, when the test ends.
func (h *harness) pushImage(r *registry, tag, variant string) (ref, id string) {
	h.t.Helper()
	ref = fmt.Sprintf("%s/%s/web:%s", r.addr, h.set, tag)
	dockerfile := fmt.Sprintf("FROM %s\nLABEL io.ostset.test=%q io.ostset.test.variant=%q\n", imageV1, h.set, variant)
	build := exec.Command("docker", "build", "--quiet", "--tag", ref, "-")
	build.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	build.Stdin = strings.NewReader(dockerfile)
	var stderr bytes.Buffer
	build.Stderr = &stderr
	out, err := build.Output()
	if err != nil {
		h.t.Fatalf("docker build %s: %v\n%s", ref, err, stderr.String())
	}
	id = strings.TrimSpace(string(out))
	h.t.Cleanup(func() { h.removeImages() })
	push := []string{"push", ref}
	if r.config != "" {
		push = append([]string{"--config", r.config}, push...)
	}
	h.docker(push...)
	h.docker("rmi", ref)
	return ref, id
}

// removeImages removes the images this test built or pulled, found by label,
// after the containers that use them.
func (h *harness) removeImages() {
	h.cleanup()
	if ids := h.dockerLines("images", "-q", "--no-trunc", "--filter", "label=io.ostset.test="+h.set); len(ids) > 0 {
		h.dockerQuiet(append([]string{"rmi", "-f"}, ids...)...)
	}
}

// replicaImages returns the image ID each replica container runs, by name.
func (h *harness) replicaImages() map[string]string {
	h.t.Helper()
	images := map[string]string{}
	for _, name := range h.replicaNames() {
		images[name] = h.docker("inspect", "-f", "{{.Image}}", name)
	}
	return images
}

// localImageID is the ID of ref in the engine, "" if absent.
func (h *harness) localImageID(ref string) string {
	out, err := exec.Command("docker", "image", "inspect", "-f", "{{.Id}}", ref).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ""
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
