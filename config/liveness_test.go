package config

import (
	"strings"
	"testing"
)

// liveness and startup are read from a set file, checked, hashed (a change
// rolls the set) and pinned by a golden hash.
func TestLivenessAndStartupProbes(t *testing.T) {
	src := base + `  liveness: {test: [CMD, /health], interval: 5s, timeout: 1s, retries: 2, startPeriod: 3s}
  startup: {test: [CMD-SHELL, "test -f /ready"], interval: 1s, retries: 30}
`
	sets, err := Loader{}.Parse("set.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := sets[0].Template
	if l := tmpl.Liveness; l == nil || l.Retries != 2 || l.Interval != Duration(5e9) || l.StartPeriod != Duration(3e9) || l.Test[1] != "/health" {
		t.Errorf("liveness read as %+v", l)
	}
	if s := tmpl.Startup; s == nil || s.Retries != 30 || s.Test[0] != "CMD-SHELL" {
		t.Errorf("startup read as %+v", s)
	}
	none := Set{Name: "web", Template: Template{Image: "redis:7"}}
	with := none.Clone()
	with.Template.Liveness = tmpl.Liveness
	if got, want := with.RevisionSpec(testImageID).Hash(), "ce4e35053d"; got != want {
		t.Errorf("hash with a liveness probe = %s, want %s", got, want)
	}
	with.Template.Startup = tmpl.Startup
	if got, want := with.RevisionSpec(testImageID).Hash(), "f6a5fab16e"; got != want {
		t.Errorf("hash with liveness and startup probes = %s, want %s", got, want)
	}
	if got, want := none.RevisionSpec(testImageID).Hash(), "f64c33bc9f"; got != want {
		t.Errorf("hash without probes = %s, want %s (unchanged)", got, want)
	}
	changed := with.Clone()
	changed.Template.Liveness.Retries = 3
	if changed.RevisionSpec(testImageID).Hash() == with.RevisionSpec(testImageID).Hash() {
		t.Error("a liveness probe's failure threshold does not change the revision")
	}
	if with.Template.Liveness.Retries != 2 {
		t.Error("Clone shares the liveness probe")
	}
}

func TestInvalidProbes(t *testing.T) {
	for src, want := range map[string]string{
		"  liveness: {test: [NONE]}\n":                     `template.liveness.test: must start with "CMD" or "CMD-SHELL"`,
		"  startup: {test: [CMD, x], startInterval: 1s}\n": `template.startup.startInterval: is a healthcheck's`,
		"  startup: {test: [CMD]}\n":                       `template.startup.test: CMD needs a command after it`,
		"  liveness: {test: [CMD, x], retries: -1}\n":      `template.liveness.retries`,
		"  liveness: {test: [CMD, x], interval: 10us}\n":   `template.liveness.interval: must be 0 or at least 1ms`,
	} {
		_, err := Loader{}.Parse("set.yaml", []byte(base+src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", strings.TrimSpace(src), err, want)
		}
	}
}
