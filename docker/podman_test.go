package docker

import (
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// fakeEngine serves the few API calls Observe makes, as Podman's
// Docker-compatible service answers them (podman: true) or as Docker does.
func fakeEngine(t *testing.T, podman bool, health *container.Health, hc *container.HealthConfig) *Runtime {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	status := "Up 2 seconds"
	if !podman && health != nil {
		status += " (health: " + string(health.Status) + ")"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		var body any
		switch {
		case strings.HasSuffix(p, "/version"):
			name := "Engine"
			if podman {
				name = "Podman Engine"
			}
			body = map[string]any{"Version": "4.3.1", "ApiVersion": "1.41", "Components": []map[string]any{{"Name": name, "Version": "4.3.1"}}}
		case strings.HasSuffix(p, "/containers/json"):
			body = []map[string]any{{"Id": "c1", "Names": []string{"/web-0"}, "State": "running", "Status": status,
				"Labels": map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "0"}}}
		case strings.HasSuffix(p, "/containers/c1/json"):
			body = map[string]any{"Id": "c1", "Name": "/web-0",
				"State":  map[string]any{"Status": "running", "Running": true, "StartedAt": time.Now().Format(time.RFC3339Nano), "Health": health},
				"Config": map[string]any{"Healthcheck": hc, "Labels": map[string]string{plan.LabelSet: "web"}}}
		case strings.HasSuffix(p, "/volumes"):
			body = map[string]any{"Volumes": []any{}}
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(body)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	cli, err := client.New(client.WithHost("unix://"+sock), client.WithAPIVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	return &Runtime{cli: cli}
}

// On Podman, whose container list carries no health in Status, a replica
// whose healthcheck has not passed is not taken for one without a
// healthcheck: its health comes from inspect, and it carries the
// healthcheck for ostset's prober.
func TestPodmanHealthComesFromInspect(t *testing.T) {
	hc := &container.HealthConfig{Test: []string{"CMD-SHELL", "check"}, Interval: 10 * time.Second, Retries: 3}
	r := fakeEngine(t, true, &container.Health{Status: container.Starting}, hc)
	obs, err := r.Observe(t.Context(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep := obs.Replicas[0]
	if rep.Health != plan.HealthStarting || rep.Ready() {
		t.Fatalf("health %q, ready %v; want starting, not ready", rep.Health, rep.Ready())
	}
	if rep.Healthcheck == nil || rep.Healthcheck.Interval != 10*time.Second || rep.Healthcheck.Test[0] != "CMD-SHELL" {
		t.Fatalf("healthcheck %+v", rep.Healthcheck)
	}
	if !r.isPodman(t.Context()) || r.EngineRunsHealthchecks(t.Context()) {
		t.Fatal("Podman not recognised")
	}
}

// On Podman a replica without a healthcheck is ready, from inspect too.
func TestPodmanWithoutHealthcheckIsReady(t *testing.T) {
	r := fakeEngine(t, true, nil, nil)
	obs, err := r.Observe(t.Context(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := obs.Replicas[0]; rep.Health != plan.HealthNone || !rep.Ready() {
		t.Fatalf("health %q, ready %v", rep.Health, rep.Ready())
	}
}

// On Docker the list's Status carries the health; a starting replica is
// inspected (why it is not ready) and carries its healthcheck too.
func TestDockerStartingReplicaCarriesItsHealthcheck(t *testing.T) {
	hc := &container.HealthConfig{Test: []string{"CMD", "check"}, Interval: 10 * time.Second}
	r := fakeEngine(t, false, &container.Health{Status: container.Starting}, hc)
	obs, err := r.Observe(t.Context(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep := obs.Replicas[0]
	if rep.Health != plan.HealthStarting || rep.Healthcheck == nil || rep.Healthcheck.Test[1] != "check" {
		t.Fatalf("health %q, healthcheck %+v", rep.Health, rep.Healthcheck)
	}
	if !r.EngineRunsHealthchecks(t.Context()) {
		t.Fatal("Docker taken for an engine that runs no healthchecks")
	}
}

func TestProbeCommand(t *testing.T) {
	for _, tc := range []struct {
		test []string
		want string
	}{
		{[]string{"CMD", "pg_isready", "-h", "127.0.0.1"}, "pg_isready -h 127.0.0.1"},
		{[]string{"CMD-SHELL", "nc -z localhost 80"}, "/bin/sh -c nc -z localhost 80"},
		{[]string{"NONE"}, ""},
		{nil, ""},
	} {
		cmd, _ := probeCommand(tc.test)
		if got := strings.Join(cmd, " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.test, got, tc.want)
		}
	}
	c := container.InspectResponse{Config: &container.Config{Shell: []string{"/bin/bash", "-c"},
		Healthcheck: &container.HealthConfig{Test: []string{"CMD-SHELL", "true"}}}}
	if h := inspectedHealthcheck(c); strings.Join(h.Test, " ") != "CMD /bin/bash -c true" {
		t.Errorf("a CMD-SHELL test with the container's SHELL: %q", h.Test)
	}
}

// A replica's healthcheck is given a start interval at create only where
// the engine's API takes the field (1.44+); below, the engine would drop it.
func TestHealthcheckAtCreateFollowsTheAPIVersion(t *testing.T) {
	hc := &container.HealthConfig{Test: []string{"CMD", "x"}, Interval: 10 * time.Second}
	for version, want := range map[string]time.Duration{"1.41": 0, "1.43": 0, "1.44": StartIntervalGiven, "1.47": StartIntervalGiven} {
		cli, err := client.New(client.WithHost("unix:///nonexistent"), client.WithAPIVersion(version))
		if err != nil {
			t.Fatal(err)
		}
		r := &Runtime{cli: cli}
		if got := r.healthcheckAtCreate(hc); got.StartInterval != want {
			t.Errorf("API %s: start interval %s, want %s", version, got.StartInterval, want)
		}
	}
	if hc.StartInterval != 0 {
		t.Error("the template's healthcheck was changed")
	}
}

// On API 1.44+ a healthcheck without a start interval is given one, with a
// start period of one interval when it has none; NONE, the image's own
// healthcheck, a set start interval and a short interval are left alone.
func TestWithStartInterval(t *testing.T) {
	h := withStartInterval(&container.HealthConfig{Test: []string{"CMD", "x"}, Interval: 10 * time.Second})
	if h.StartInterval != StartIntervalGiven || h.StartPeriod != 10*time.Second {
		t.Errorf("%+v", h)
	}
	h = withStartInterval(&container.HealthConfig{Test: []string{"CMD", "x"}, StartPeriod: time.Minute})
	if h.StartInterval != StartIntervalGiven || h.StartPeriod != time.Minute {
		t.Errorf("default interval, own start period: %+v", h)
	}
	for _, in := range []*container.HealthConfig{
		nil,
		{Test: []string{"NONE"}},
		{Test: []string{"CMD", "x"}, StartInterval: 2 * time.Second},
		{Test: []string{"CMD", "x"}, Interval: 500 * time.Millisecond},
	} {
		if out := withStartInterval(in); out != in {
			t.Errorf("%+v changed to %+v", in, out)
		}
	}
}
