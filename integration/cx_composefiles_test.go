//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cxFiles: app has a secret from a file, a config from a text, a
// container_name, a hostname and an anonymous volume; client reaches it by
// those names.
const cxFiles = `
name: {{PROJECT}}
services:
  app:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
    container_name: {{PROJECT}}-legacy
    hostname: appbox
    secrets:
      - source: pw
        uid: "1000"
        mode: 0440
    configs:
      - source: conf
        target: /etc/app/app.conf
    volumes:
      - /cache
    pre_start:
      - entrypoint: ["sh", "-c"]
        command: ["echo ready > /cache/pre-start"]
  term:
    image: ostset-test/redis:7
    entrypoint: ["cat"]
    stop_grace_period: 1s
    stdin_open: true
    tty: true
    runtime: runc
    pid: host
  client:
    image: ostset-test/redis:7
    entrypoint: ["sleep", "infinity"]
    stop_grace_period: 1s
secrets:
  pw:
    file: ./pw.txt
configs:
  conf:
    content: "listen 80"
`

// A replica reads its secret at /run/secrets/<name> with the mode and owner
// the file asks for, and its config at its target; its pre_start hook ran
// before it, on its volume; the service answers to
// its container_name and hostname; what it wrote to its anonymous volume is
// still there once the replica is recreated.
func TestCxComposeSecretsNamesAnonymousVolume(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxFiles)
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "pw.txt"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.mustOstset("up", "-f", file, "--timeout", "2m")
	app := project + "-app-0"
	if got := h.exec(app, "cat", "/run/secrets/pw"); got != "s3cret" {
		t.Errorf("secret %q", got)
	}
	if got := h.exec(app, "stat", "-c", "%a %u %g", "/run/secrets/pw"); got != "440 1000 0" {
		t.Errorf("secret mode, owner, group %q, want 440 1000 0", got)
	}
	if got := h.exec(app, "cat", "/cache/pre-start"); got != "ready" {
		t.Errorf("the pre_start hook's file: %q, want ready", got)
	}
	if got := h.exec(app, "cat", "/etc/app/app.conf"); got != "listen 80" {
		t.Errorf("config %q", got)
	}
	if got := h.exec(app, "stat", "-c", "%a", "/etc/app/app.conf"); got != "444" {
		t.Errorf("config mode %q, want 444", got)
	}
	if env := h.exec(app, "env"); strings.Contains(env, "s3cret") {
		t.Errorf("the secret is in the environment:\n%s", env)
	}
	for _, name := range []string{project + "-legacy", "appbox"} {
		if _, err := h.tryDocker("exec", project+"-client-0", "getent", "hosts", name); err != nil {
			t.Errorf("client does not resolve %s: %v", name, err)
		}
	}
	h.exec(app, "sh", "-c", "echo kept > /cache/mark")
	before := h.docker("inspect", "-f", "{{.Id}}", app)
	h.mustOstset("rollout", "restart", project+"-app", "--wait", "--timeout", "2m")
	if after := h.docker("inspect", "-f", "{{.Id}}", app); after == before {
		t.Fatal("the replica was not recreated")
	}
	if got := h.exec(app, "cat", "/cache/mark"); got != "kept" {
		t.Errorf("anonymous volume after the recreate: %q, want kept", got)
	}
	if got := h.exec(app, "cat", "/run/secrets/pw"); got != "s3cret" {
		t.Errorf("secret after the recreate %q", got)
	}
}

// stdin_open keeps a replica's stdin open (cat waits on it rather than exit),
// tty gives it a terminal (as inspect shows), pid: host the host's processes, runtime its runtime.
func TestCxComposeStdinTTYPidRuntime(t *testing.T) {
	t.Parallel()
	h, project, file := cxProject(t, cxFiles)
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "pw.txt"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.mustOstset("up", "-f", file, "--timeout", "2m")
	term := project + "-term-0"
	if got := h.docker("inspect", "-f", "{{.State.Running}} {{.Config.OpenStdin}} {{.Config.Tty}} {{.HostConfig.PidMode}} {{.HostConfig.Runtime}}", term); got != "true true true host runc" {
		t.Errorf("term: %q, want running, stdin open, a tty, pid host, runc", got)
	}
	if got := h.exec(term, "cat", "/proc/1/comm"); got == "cat" {
		t.Errorf("process 1 is the replica's own: %q, want the host's", got)
	}
}
