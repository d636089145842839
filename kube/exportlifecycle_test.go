package kube

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
)

// A set's lifecycle hooks are reported by an export and kept in its
// annotation: an import of the export has them back, with the same revision.
func TestExportKeepsLifecycleHooks(t *testing.T) {
	s := loadExportCase(t, "../examples/web/set.yaml")
	s.Template.Lifecycle = &config.Lifecycle{
		PostStart: []config.Hook{{Command: []string{"/web", "write", "/data/up", "{{.Name}}"}, User: "0", Env: map[string]string{"A": "1"}}},
		PreStop:   []config.Hook{{Command: []string{"/web", "rm", "/data/up"}, WorkingDir: "/data", Privileged: true}},
	}
	out, lost, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lost, func(u Unexpressed) bool { return u.Field == "template.lifecycle" }) {
		t.Errorf("not reported: %v", lost)
	}
	back, err := parseWithManifests("web-k8s.yaml", out)
	if err != nil || len(back) != 1 {
		t.Fatalf("import: %v\n%s", err, out)
	}
	got, _ := json.Marshal(back[0].Template.Lifecycle) // an empty env and none alike
	want, _ := json.Marshal(s.Template.Lifecycle)
	if string(got) != string(want) {
		t.Errorf("hooks after the round trip %+v, want %+v", back[0].Template.Lifecycle, s.Template.Lifecycle)
	}
	if h, want := back[0].RevisionSpec("sha256:1").Hash(), s.RevisionSpec("sha256:1").Hash(); h != want {
		t.Errorf("revision hash %s after the round trip, want %s", h, want)
	}
}
