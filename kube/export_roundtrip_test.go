package kube

import (
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// A set exported as Kubernetes manifests and imported again is the same set,
// with the same revision: the manifest says what it can, the annotation keeps
// the rest.
func TestExportImportRoundTrip(t *testing.T) {
	for name, path := range exportCases {
		t.Run(name, func(t *testing.T) {
			s := loadExportCase(t, path)
			out, _, err := ExportKubernetes(s, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			back, err := parseWithManifests(name+"-k8s.yaml", out)
			if err != nil {
				t.Fatalf("import: %v\n%s", err, out)
			}
			if len(back) != 1 {
				t.Fatalf("%d sets imported, want 1", len(back))
			}
			got := back[0]
			if h, want := got.RevisionSpec("sha256:1").Hash(), s.RevisionSpec("sha256:1").Hash(); h != want {
				t.Errorf("revision hash %s after the round trip, want %s", h, want)
			}
			// Beyond the revision: every field, but for where it was read, the
			// pull policy an export writes out (IfNotPresent for unset), and
			// resources, which count by value (512m and 536870912 alike).
			if g, w := comparable(t, got), comparable(t, s); g != w {
				t.Errorf("imported\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// comparable writes s as a set file (where nil and empty lists alike are
// []), with what may differ in form only made uniform.
func comparable(t *testing.T, s config.Set) string {
	t.Helper()
	s = s.Clone()
	// An import keeps the manifest (an export like any other) as written;
	// the sets here come from set files, which have none.
	s.Kubernetes = nil
	s.Template.ImagePullPolicy = s.Template.PullPolicy()
	s.Template.Resources = resourcesByValue(s.Template.Resources)
	for i := range s.Template.InitContainers {
		c := &s.Template.InitContainers[i]
		c.ImagePullPolicy = c.PullPolicy()
		c.Resources = resourcesByValue(c.Resources)
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func resourcesByValue(r config.Resources) config.Resources {
	return config.Resources{CPUs: canonicalQuantity(r.CPUs, config.ParseCPUs), Memory: canonicalQuantity(r.Memory, config.ParseMemory)}
}

// A set whose template labels say app.kubernetes.io/name: <set> themselves
// keeps that label, and its revision, through an export and an import: the
// manifest writes it as the selector only, which an import does not keep.
func TestExportImportRoundTripKeepsTheNameLabel(t *testing.T) {
	sets, err := config.Parse("set.yaml", []byte(`
name: web
replicas: 2
serviceName: web
template:
  image: nginx:1
  labels:
    app.kubernetes.io/name: web
    tier: front
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	out, _, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseWithManifests("web-k8s.yaml", out)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if got := back[0].Template.Labels[NameLabel]; got != "web" {
		t.Errorf("label %s after the round trip: %q, want web\n%s", NameLabel, got, out)
	}
	if h, want := back[0].RevisionSpec("sha256:1").Hash(), s.RevisionSpec("sha256:1").Hash(); h != want {
		t.Errorf("revision hash %s after the round trip, want %s", h, want)
	}
}

func canonicalQuantity(s string, parse func(string) (int64, error)) string {
	if n, err := parse(s); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return s
}
