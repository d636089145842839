//go:build integration

package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostset/ostset/internal/faultproxy"
)

// dockerContextStore writes a docker config directory whose current context
// is name, with host as its docker endpoint, as `docker context create NAME
// --docker host=HOST && docker context use NAME` leaves it.
func dockerContextStore(t *testing.T, name, host string) string {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256([]byte(name))
	meta := filepath.Join(dir, "contexts", "meta", hex.EncodeToString(sum[:]))
	if err := os.MkdirAll(meta, 0o700); err != nil {
		t.Fatal(err)
	}
	js := `{"Name":"` + name + `","Metadata":{"Description":""},"Endpoints":{"docker":{"Host":"` + host + `","SkipTLSVerify":false}}}`
	if err := os.WriteFile(filepath.Join(meta, "meta.json"), []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{},"currentContext":"`+name+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// With DOCKER_HOST unset, the docker CLI's current context names the engine:
// every request of ostset version and ostset up goes through the context's
// socket (a proxy in front of the machine's engine), and version says which
// context it used. --context default goes back to the default socket.
func TestCurrentDockerContextReceivesTheTraffic(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sockDir, err := os.MkdirTemp("", "octx")
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start("/var/run/docker.sock", sockDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Close()
		_ = os.RemoveAll(sockDir)
	})
	ctxName := "ctx-" + h.set
	h.env = append(h.env, "DOCKER_CONFIG="+dockerContextStore(t, ctxName, p.Host()), "DOCKER_HOST=", "DOCKER_CONTEXT=")

	v := h.mustOstset("version")
	for _, want := range []string{`docker context "` + ctxName + `"`, p.Host(), "engine version: "} {
		if !strings.Contains(v.stdout, want) {
			t.Errorf("ostset version lacks %q:\n%s", want, v.stdout)
		}
	}
	h.mustOstset("up", "-f", h.writeSpec(baseSpec, imageV1, "replicas: 3", "replicas: 2"))
	if n := p.Count("POST", "/containers/create"); n != 2 {
		t.Fatalf("the context's socket saw %d container creates, want 2 (requests: %d)", n, len(p.Requests()))
	}
	if got := h.replicaNames(); len(got) != 2 {
		t.Fatalf("replicas %v", got)
	}

	before := len(p.Requests())
	h.mustOstset("--context", "default", "scale", h.set, "--replicas", "1")
	if after := len(p.Requests()); after != before {
		t.Fatalf("--context default still went through the current context: %d requests", after-before)
	}
	if got := h.replicaNames(); len(got) != 1 {
		t.Fatalf("after scale 1 through the default socket: replicas %v", got)
	}
}

// When the current context's engine does not answer, the error says which
// engine and which context, and the default socket is not tried behind the
// user's back.
func TestUnreachableContextIsNamed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dead := "unix://" + filepath.Join(t.TempDir(), "nothing.sock")
	ctxName := "dead-" + h.set
	h.env = append(h.env, "DOCKER_CONFIG="+dockerContextStore(t, ctxName, dead), "DOCKER_HOST=", "DOCKER_CONTEXT=")
	r := h.ostset("up", "-f", h.writeSpec(baseSpec, imageV1))
	if r.code != 1 {
		t.Fatalf("want exit 1: %s", r)
	}
	for _, want := range []string{dead, `docker context "` + ctxName + `"`, "unreachable"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("error lacks %q: %s", want, r.stderr)
		}
	}
	if h.exists(h.name(0)) {
		t.Fatal("a replica was made on another engine")
	}
	r = h.ostset("--context", "nosuch-"+h.set, "get")
	if r.code != 2 || !strings.Contains(r.stderr, `docker context "nosuch-`+h.set+`" (from --context)`) {
		t.Fatalf("an unknown --context: want exit 2 naming it: %s", r)
	}
}
