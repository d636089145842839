package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ostset/ostset/engine/plan"
)

// scrape gets /metrics from addr and parses it as Prometheus text.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// value finds the value of the series of fam whose labels include want.
func value(fam *dto.MetricFamily, want map[string]string) (float64, bool) {
	for _, m := range fam.GetMetric() {
		match := true
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			match = match && found
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetricsServed(t *testing.T) {
	m := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, _, err := m.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.Pass("web", plan.Plan{
		Actions: []plan.Action{{Kind: plan.ActCreate, Name: "web-2"}},
		Status: plan.Status{Replicas: 3, Containers: []plan.ContainerStatus{
			{Name: "web-0", Ready: true}, {Name: "web-1", Ready: false},
		}},
	}, nil)
	m.Pass("db", plan.Plan{Complete: true}, nil)
	m.Pass("db", plan.Plan{}, context.DeadlineExceeded)
	m.Reacted(60 * time.Millisecond)
	m.RuntimeError("create")

	fams := scrape(t, "http://"+addr.String()+"/metrics")
	for _, c := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"ostset_reconciles_total", map[string]string{"set": "web", "result": "ok"}, 1},
		{"ostset_reconciles_total", map[string]string{"set": "db", "result": "error"}, 1},
		{"ostset_actions_total", map[string]string{"kind": "create"}, 1},
		{"ostset_actions_total", map[string]string{"kind": "delete"}, 0},
		{"ostset_reaction_seconds", nil, 1},
		{"ostset_docker_errors_total", map[string]string{"op": "create"}, 1},
		{"ostset_docker_errors_total", map[string]string{"op": "events"}, 0},
		{"ostset_sets", map[string]string{"state": "progressing"}, 1},
		{"ostset_sets", map[string]string{"state": "failing"}, 1},
		{"ostset_sets", map[string]string{"state": "converged"}, 0},
		{"ostset_replicas", map[string]string{"set": "web", "state": "ready"}, 1},
		{"ostset_replicas", map[string]string{"set": "web", "state": "not_ready"}, 1},
		{"ostset_replicas", map[string]string{"set": "web", "state": "missing"}, 1},
		{"go_goroutines", nil, -1},
		{"process_resident_memory_bytes", nil, -1},
	} {
		fam, ok := fams[c.family]
		if !ok {
			t.Errorf("metric %s missing", c.family)
			continue
		}
		got, ok := value(fam, c.labels)
		if !ok {
			t.Errorf("%s%v missing", c.family, c.labels)
			continue
		}
		if c.want >= 0 && got != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}

	m.Forget("web")
	fams = scrape(t, "http://"+addr.String()+"/metrics")
	if _, ok := value(fams["ostset_replicas"], map[string]string{"set": "web"}); ok {
		t.Error("a forgotten set still has replica series")
	}
	if got, _ := value(fams["ostset_sets"], map[string]string{"state": "progressing"}); got != 0 {
		t.Errorf("sets progressing = %v after the set was forgotten, want 0", got)
	}

	resp, err := http.Get("http://" + addr.String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Errorf("/healthz: %s %q", resp.Status, body)
	}
}

// Go's profiles are served only when asked for.
func TestProfilingOptIn(t *testing.T) {
	get := func(h http.Handler, path string) (int, string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	m := New()
	if code, _ := get(m.Handler(), "/debug/pprof/heap?debug=1"); code != http.StatusNotFound {
		t.Errorf("profiles served without Profiling: status %d", code)
	}
	m.Profiling = true
	code, body := get(m.Handler(), "/debug/pprof/heap?debug=1")
	if code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("heap profile with Profiling: status %d, %.80q", code, body)
	}
	if code, body := get(m.Handler(), "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("profile index: status %d, %.80q", code, body)
	}
	if code, _ := get(m.Handler(), "/metrics"); code != http.StatusOK {
		t.Errorf("/metrics with Profiling: status %d", code)
	}
}

// /healthz answers 503 with the reason while the engine is gone: the daemon
// runs but keeps nothing converged; 200 again once the engine is back.
func TestHealthzWhileTheEngineIsGone(t *testing.T) {
	m := New()
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusOK || body != "ok\n" {
		t.Errorf("before: %d %q", code, body)
	}
	m.EngineGone(errors.New("Cannot connect to the Docker daemon at unix:///var/run/docker.sock"))
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "docker engine gone") || !strings.Contains(body, "Cannot connect to the Docker daemon") {
		t.Errorf("engine gone: %d %q", code, body)
	}
	m.EngineGone(nil)
	if code, body := get(); code != http.StatusOK || body != "ok\n" {
		t.Errorf("engine back: %d %q", code, body)
	}
}
