//go:build integration

package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

const (
	testImage = "ostset-dockertest/app:1"
	testLabel = "io.ostset.test" // every object a test creates carries it: value = the test's set
)

var (
	rt      *Runtime
	imageID string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if rt, err = New(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = rt.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := rt.Ping(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if imageID, err = buildImage(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "build test image:", err)
		return 1
	}
	return m.Run()
}

// buildImage compiles testdata/app statically and builds a FROM scratch image
// around it with the SDK (the engine's legacy builder; nothing is pulled).
func buildImage(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "ostset-dockertest-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, "app")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./testdata/app")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w: %s", err, out)
	}
	app, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	dockerfile := "FROM scratch\nCOPY app /app\nEXPOSE 8080\nENTRYPOINT [\"/app\"]\n"
	tarball, err := tarOf(map[string][]byte{"Dockerfile": []byte(dockerfile), "app": app})
	if err != nil {
		return "", err
	}
	res, err := rt.cli.ImageBuild(ctx, tarball, client.ImageBuildOptions{Tags: []string{testImage}, Remove: true})
	if err != nil {
		return "", err
	}
	defer func() { _ = res.Body.Close() }()
	if err := buildErrors(res.Body); err != nil {
		return "", err
	}
	return rt.EnsureImage(ctx, testImage, config.PullNever, nil)
}

func tarOf(files map[string][]byte) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// buildErrors reads the build's JSON progress stream and returns its error, if any.
func buildErrors(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var msg struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if msg.Error != "" {
			return fmt.Errorf("docker build: %s", msg.Error)
		}
	}
}

// newSet returns a unique set name and removes, at the end of the test, every
// container and volume labelled io.ostset.test=<set> and every network whose
// name starts with <set>- (names nobody else uses).
func newSet(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	set := "dt-" + hex.EncodeToString(b)
	t.Cleanup(func() { cleanup(t, set) })
	return set
}

func cleanup(t *testing.T, set string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	byLabel := make(client.Filters).Add("label", testLabel+"="+set)
	cs, err := rt.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: byLabel})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	for _, c := range cs.Items {
		if _, err := rt.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			t.Errorf("cleanup container %s: %v", c.Names, err)
		}
	}
	vs, err := rt.cli.VolumeList(ctx, client.VolumeListOptions{Filters: byLabel})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	for _, v := range vs.Items {
		if _, err := rt.cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil {
			t.Errorf("cleanup volume %s: %v", v.Name, err)
		}
	}
	ns, err := rt.cli.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("name", set+"-")})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	for _, n := range ns.Items {
		if strings.HasPrefix(n.Name, set+"-") {
			if _, err := rt.cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
				t.Errorf("cleanup network %s: %v", n.Name, err)
			}
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// replicaSpec is a minimal replica of the test image on the set's network.
func replicaSpec(set string, ordinal int) plan.ReplicaSpec {
	name := plan.ReplicaName(set, ordinal)
	return plan.ReplicaSpec{
		Set:         set,
		Name:        name,
		Ordinal:     ordinal,
		Revision:    set + "-abc123",
		Image:       imageID,
		Env:         []string{"OSTSET_NAME=" + name, "OSTSET_SET=" + set},
		Labels:      map[string]string{testLabel: set},
		Network:     set + "-net",
		Aliases:     []string{name, name + "." + set, set},
		StopTimeout: 5 * time.Second,
	}
}

// volumeFor adds a per-ordinal volume of claim "data" mounted at /data.
func volumeFor(spec *plan.ReplicaSpec) string {
	name := "data-" + spec.Name
	spec.Volumes = append(spec.Volumes, plan.VolumeSpec{Name: name, Labels: map[string]string{
		plan.LabelSet: spec.Set, plan.LabelClaim: "data",
		plan.LabelOrdinal: fmt.Sprint(spec.Ordinal), testLabel: spec.Set,
	}})
	spec.Mounts = append(spec.Mounts, plan.Mount{Type: "volume", Source: name, Target: "/data"})
	return name
}

// rawContainer creates (and optionally starts) a container without going through
// the Runtime, carrying only the given labels plus the test label.
func rawContainer(t *testing.T, ctx context.Context, set, name string, labels map[string]string, start bool, cmd ...string) string {
	t.Helper()
	l := map[string]string{testLabel: set}
	for k, v := range labels {
		l[k] = v
	}
	res, err := rt.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:   name,
		Config: &container.Config{Image: imageID, Labels: l, Cmd: cmd, StopTimeout: ptr(1)},
	})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if start {
		if _, err := rt.cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
	}
	return res.ID
}

func inspect(t *testing.T, ctx context.Context, id string) container.InspectResponse {
	t.Helper()
	res, err := rt.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatalf("inspect %s: %v", id, err)
	}
	return res.Container
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func ptr[T any](v T) *T { return &v }

func mustContain(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got nil", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
}
