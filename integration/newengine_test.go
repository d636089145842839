//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// engineJSON GETs an API path (without version prefix) from a unix-socket
// engine at its own newest API version: the docker CLI of this machine (20.10)
// does not know the newer fields.
func engineJSON(t *testing.T, host, version, path string, v any) {
	t.Helper()
	sock := strings.TrimPrefix(host, "unix://")
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}, Timeout: 30 * time.Second}
	resp, err := c.Get("http://docker/v" + version + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// The core against a current engine (OSTSET_NEW_DOCKERD: a dockerd built from
// the github.com/moby/moby/v2 module, `make test-new-engine`), run privately as
// TestEfEngineRestart runs one: ostset negotiates its API (1.52 or later),
// applies a healthcheck's startInterval (which it refuses below 1.44), reads
// health where that engine puts it, and an OrderedReady rollout, a rolling
// update, a scale-down and down behave as on 20.10.
func TestNewEngineCore(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("OSTSET_NEW_DOCKERD")
	if bin == "" {
		t.Skip("OSTSET_NEW_DOCKERD names no dockerd (make test-new-engine builds one and runs this test)")
	}
	// Current engines give each container a time namespace, which the runc of
	// Debian 12 (1.1.5) does not know: "namespace {"time" ""} does not exist".
	e := startPrivateEngineWith(t, bin, `{"features": {"time-namespaces": false}}`+"\n")
	h := newHarnessPrefix(t, "ne")
	h.engine = e.host() // ostset and the checks' docker CLI both use the private engine

	v := h.mustOstset("version")
	m := regexp.MustCompile(`\(API 1\.(\d+),`).FindStringSubmatch(v.stdout)
	if m == nil || !strings.Contains(v.stdout, e.host()+" (from DOCKER_HOST)") {
		t.Fatalf("ostset version:\n%s", v.stdout)
	}
	minor, _ := strconv.Atoi(m[1])
	if minor < 52 {
		t.Fatalf("the engine speaks API 1.%d; this test is for 1.52 and later", minor)
	}
	api := "1." + m[1]

	spec := h.writeSpec(baseSpec, imageV1, "    retries: 1\n", "    retries: 1\n    startPeriod: 20s\n    startInterval: 250ms\n")
	start := time.Now()
	h.mustOstset("up", "-f", spec, "--timeout", "90s")
	t.Logf("up of 3 OrderedReady replicas on API %s: %v", api, time.Since(start).Round(time.Millisecond))
	rev1 := h.checkReplicas(3)
	if !h.settled() {
		t.Fatalf("up returned before the set settled:\n%s", h.mustOstset("status", h.set))
	}
	var c struct {
		Config struct{ Healthcheck struct{ StartInterval int64 } }
	}
	engineJSON(t, e.host(), api, "/containers/"+h.name(0)+"/json", &c)
	if c.Config.Healthcheck.StartInterval != int64(250*time.Millisecond) {
		t.Fatalf("%s: start interval %d ns", h.name(0), c.Config.Healthcheck.StartInterval)
	}
	// up returns once ostset's probes passed; the engine's own checks (every
	// 250 ms in the start period) say healthy soon after: the list carries it.
	var list []struct {
		Names  []string
		Health *struct{ Status string }
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		engineJSON(t, e.host(), api, "/containers/json?filters="+`%7B%22label%22%3A%5B%22io.ostset.set%3D`+h.set+`%22%5D%7D`, &list)
		if len(list) != 3 {
			t.Fatalf("the engine lists %d containers of the set", len(list))
		}
		healthy := 0
		for _, s := range list {
			if s.Health != nil && s.Health.Status == "healthy" {
				healthy++
			}
		}
		if healthy == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list health %+v, want 3 healthy (API 1.52 puts it in the list)", list)
		}
	}

	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV2, "    retries: 1\n", "    retries: 1\n    startPeriod: 20s\n    startInterval: 250ms\n"))
	if rev2 := h.checkReplicas(3); rev2 == rev1 {
		t.Fatalf("the rolling update left the replicas at %s", rev1)
	}
	v2 := h.docker("image", "inspect", "-f", "{{.Id}}", imageV2)
	for ord := range 3 {
		if img := h.docker("inspect", "-f", "{{.Image}}", h.name(ord)); img != v2 {
			t.Errorf("%s runs %s after the update", h.name(ord), img)
		}
	}
	h.mustOstset("scale", h.set, "--replicas", "1")
	h.checkReplicas(1)
	h.mustOstset("down", h.set)
	if names := h.replicaNames(); len(names) != 0 {
		t.Fatalf("after down the engine holds %v", names)
	}
}
