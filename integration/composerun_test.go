//go:build integration

package integration

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCompose writes the compose file of a project harness.
func writeCompose(t *testing.T, h *harness, text string) string {
	t.Helper()
	file := filepath.Join(h.dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// A one-replica service with network_mode: host answers on the host's port
// itself, with no port published; with two replicas up refuses it at its
// line, before anything is done.
func TestComposeHostNetwork(t *testing.T) {
	t.Parallel()
	h, project := projectHarness(t, "hn", imageV1)
	port := freePort(t)
	text := fmt.Sprintf(`name: %s
services:
  web:
    image: %s
    network_mode: host
    environment: {PORT: "%d"}
    stop_grace_period: 1s
`, project, imageV1, port)
	file := writeCompose(t, h, text)
	h.mustOstset("up", "-f", file, "--timeout", "90s")
	name := project + "-web-0"
	if got := h.docker("inspect", "-f", "{{.HostConfig.NetworkMode}} {{len .NetworkSettings.Networks}}", name); got != "host 1" {
		t.Errorf("network mode and networks: %q, want host 1", got)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	if err != nil {
		t.Fatalf("the replica does not answer on the host's port %d: %v", port, err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if !strings.Contains(string(body), name) {
		t.Errorf("GET / on port %d: %q, want %s's page", port, body, name)
	}

	two := writeCompose(t, h, strings.Replace(text, "network_mode: host", "network_mode: host\n    deploy: {replicas: 2}", 1))
	r := h.ostset("up", "-f", two, "--timeout", "30s")
	if r.code != 2 || !strings.Contains(r.stderr, "compose.yaml:5: services.web.network_mode: host networking takes one replica: 2 replicas would share the host's ports") {
		t.Errorf("two replicas on the host network: %s", r)
	}
	if got := h.dockerLines("ps", "-aq", "--filter", "name=^"+project+"-web-1$"); len(got) != 0 {
		t.Errorf("a refused up created %v", got)
	}
}

// post_start runs in the replica once it has started, as the hook's user,
// in its working directory, with its environment; pre_stop runs before
// ostset stops it, and what it wrote survives in the replica's volume. A
// post_start that fails stops up with its exit status, the replica left
// running, as docker compose does.
func TestComposeLifecycleHooks(t *testing.T) {
	t.Parallel()
	h, project := projectHarness(t, "lh", imageV1)
	text := fmt.Sprintf(`name: %s
services:
  web:
    image: %s
    stop_grace_period: 5s
    volumes: [data:/data]
    post_start:
      - command: ["/web", "write", "post-start", "started"]
        working_dir: /data
    pre_stop:
      - command: ["/web", "write", "/data/pre-stop", "stopping"]
    x-ostset:
      volumeClaimTemplates: [{name: data}]
volumes:
  data:
`, project, imageV1)
	file := writeCompose(t, h, text)
	h.mustOstset("up", "-f", file, "--timeout", "90s")
	name := project + "-web-0"
	if got := h.exec(name, "/web", "cat", "/data/post-start"); got != "started" {
		t.Errorf("post_start's file: %q, want started", got)
	}
	// ostset stop runs pre_stop as docker compose stop does; the marker is
	// then taken away, so that the scale-down below writes it anew.
	vol := "data-" + project + "-web-0"
	h.mustOstset("stop", project+"-web", "--timeout", "60s")
	if out := h.docker("run", "--rm", "--label", "io.ostset.test="+h.stateDir, "-v", vol+":/data", imageV1, "cat", "/data/pre-stop"); out != "stopping" {
		t.Errorf("pre_stop's marker after ostset stop: %q, want stopping", out)
	}
	h.docker("run", "--rm", "--label", "io.ostset.test="+h.stateDir, "-v", vol+":/data", imageV1, "rm", "/data/pre-stop")
	h.mustOstset("start", project+"-web", "--timeout", "60s")
	h.mustOstset("scale", project+"-web", "--replicas", "0", "--timeout", "60s")
	out := h.docker("run", "--rm", "--label", "io.ostset.test="+h.stateDir, "-v", vol+":/data", imageV1, "cat", "/data/pre-stop")
	if out != "stopping" {
		t.Errorf("pre_stop's marker in %s: %q, want stopping", vol, out)
	}
	events := h.mustOstset("events", project+"-web").stdout
	if strings.Contains(events, "pre_stop") {
		t.Errorf("a pre_stop that succeeded is in the events:\n%s", events)
	}

	failing := writeCompose(t, h, strings.Replace(text, `["/web", "write", "post-start", "started"]`, `["/web", "cat", "/nowhere"]`, 1))
	h.mustOstset("scale", project+"-web", "--replicas", "1", "--timeout", "60s")
	r := h.ostset("up", "-f", failing, "--timeout", "60s")
	if r.code == 0 || !strings.Contains(r.stderr, name+": post_start hook 0 (/web cat /nowhere): exited with status") {
		t.Errorf("a failing post_start: %s", r)
	}
	if got := h.docker("inspect", "-f", "{{.State.Running}}", name); got != "true" {
		t.Errorf("after a failing post_start the replica is running=%s, want true (as docker compose leaves it)", got)
	}
}

// A one-replica service has the fixed address it asks for on a network made
// with the file's subnet.
func TestComposeFixedAddress(t *testing.T) {
	t.Parallel()
	h, project := projectHarness(t, "fa", imageV1)
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	subnet := fmt.Sprintf("10.%d.%d", 200+int(b[0])%50, b[1])
	file := writeCompose(t, h, fmt.Sprintf(`name: %s
services:
  dns:
    image: %s
    stop_grace_period: 1s
    networks:
      net: {ipv4_address: %s.9}
  client:
    image: %s
    stop_grace_period: 1s
    networks: [net]
networks:
  net:
    ipam:
      config:
        - subnet: %s.0/24
`, project, imageV1, subnet, imageV1, subnet))
	h.mustOstset("up", "-f", file, "--timeout", "90s")
	net := project + "_net"
	if got := h.docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net); got != subnet+".0/24" {
		t.Errorf("network %s subnet %q, want %s.0/24", net, got, subnet)
	}
	if got := h.docker("inspect", "-f", `{{(index .NetworkSettings.Networks "`+net+`").IPAddress}}`, project+"-dns-0"); got != subnet+".9" {
		t.Errorf("dns address %q, want %s.9", got, subnet)
	}
	if got := h.exec(project+"-client-0", "/web", "lookup", "dns"); got != subnet+".9" {
		t.Errorf("client resolves dns to %q, want %s.9", got, subnet)
	}
}
