package kube

import (
	"maps"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ostset/ostset/config"
)

// importTutorial reads the nginx StatefulSet and headless Service of the
// Kubernetes tutorial, with replacements applied to the text.
func importTutorial(t *testing.T, replacements ...string) config.Set {
	t.Helper()
	b, err := os.ReadFile("testdata/kubernetes/web.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sets, err := parseWithManifests("web.yaml", []byte(strings.NewReplacer(replacements...).Replace(string(b))))
	if err != nil {
		t.Fatal(err)
	}
	return sets[0]
}

// An export of an imported manifest keeps what the manifest said and ostset
// does not use: the selector (which a cluster does not let change), the
// labels, the namespace, the container's and the ports' names, and the
// readinessProbe's kind and named port. kubectl apply of the export over the
// original changes none of them.
func TestExportKeepsTheImportedIdentity(t *testing.T) {
	s := importTutorial(t,
		"metadata:\n  name: web\n", "metadata:\n  name: web\n  namespace: shop\n  labels: {tier: front}\n",
		"  name: nginx\n  labels:", "  name: nginx\n  namespace: shop\n  labels:",
		"      name: www\n    spec:\n", "      name: www\n      labels: {backup: daily}\n    spec:\n      storageClassName: fast\n",
		"storage: 1Gi", "storage: 10Gi",
		"  template:\n    metadata:\n      labels:\n        app: nginx\n", "  template:\n    metadata:\n      labels:\n        app: nginx\n        app.kubernetes.io/name: web\n")
	out, lost, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range lost {
		t.Errorf("reported: %s", u)
	}
	sts, svc := decodeExport(t, out)
	nginx := map[string]string{"app": "nginx"}
	if sts.Namespace != "shop" || svc.Namespace != "shop" {
		t.Errorf("namespaces %q, %q; want shop", sts.Namespace, svc.Namespace)
	}
	if !maps.Equal(sts.Labels, map[string]string{"tier": "front"}) {
		t.Errorf("StatefulSet labels %v, want tier: front", sts.Labels)
	}
	podLabels := map[string]string{"app": "nginx", NameLabel: "web"}
	if !maps.Equal(sts.Spec.Selector.MatchLabels, nginx) || !maps.Equal(sts.Spec.Template.Labels, podLabels) {
		t.Errorf("selector %v, pod labels %v; want app: nginx, and %s: web on the pods", sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels, NameLabel)
	}
	c := sts.Spec.Template.Spec.Containers[0]
	if c.Name != "nginx" || len(c.Ports) != 1 || c.Ports[0].Name != "web" || c.Ports[0].ContainerPort != 80 {
		t.Errorf("container %q, ports %+v; want nginx with port web: 80", c.Name, c.Ports)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/" || p.HTTPGet.Port != intstr.FromString("web") || p.Exec != nil {
		t.Errorf("readinessProbe %+v, want httpGet / on port web", p)
	}
	if cl := sts.Spec.VolumeClaimTemplates; len(cl) != 1 || cl[0].Labels["backup"] != "daily" || cl[0].Spec.StorageClassName == nil ||
		*cl[0].Spec.StorageClassName != "fast" || cl[0].Spec.Resources.Requests.Storage().String() != "10Gi" {
		t.Errorf("volumeClaimTemplates %+v, want www labelled backup: daily, class fast, 10Gi", cl)
	}
	if !maps.Equal(svc.Labels, nginx) || !maps.Equal(svc.Spec.Selector, nginx) {
		t.Errorf("Service labels %v, selector %v; want app: nginx", svc.Labels, svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "web" || svc.Spec.Ports[0].Port != 80 {
		t.Errorf("Service ports %+v, want web: 80", svc.Spec.Ports)
	}

	// And it comes back as the same set, with the same revision.
	back, err := parseWithManifests("web-k8s.yaml", out)
	if err != nil {
		t.Fatalf("import of the export: %v\n%s", err, out)
	}
	if g, w := comparable(t, back[0]), comparable(t, s); g != w {
		t.Errorf("imported\n%s\nwant\n%s", g, w)
	}
	if h, want := back[0].RevisionSpec("sha256:1").Hash(), s.RevisionSpec("sha256:1").Hash(); h != want {
		t.Errorf("revision hash %s after the round trip, want %s", h, want)
	}
}

// The names a manifest gives are not part of the revision: renaming the
// container or a port, or moving the set to another namespace, rolls nothing.
func TestKubernetesNamesAreNotInTheRevision(t *testing.T) {
	a := importTutorial(t)
	b := importTutorial(t, "name: nginx\n        image", "name: web-server\n        image", "name: web\n", "name: http\n", "port: web", "port: http",
		"metadata:\n  name: web\n", "metadata:\n  name: web\n  namespace: other\n")
	if a.Kubernetes == nil || b.Kubernetes == nil || a.Kubernetes.Container == b.Kubernetes.Container {
		t.Fatalf("names %+v and %+v, want different containers", a.Kubernetes, b.Kubernetes)
	}
	if ha, hb := a.RevisionSpec("sha256:1").Hash(), b.RevisionSpec("sha256:1").Hash(); ha != hb {
		t.Errorf("revisions %s and %s", ha, hb)
	}
}

// An export applied back as it is warns about nothing; a field edited by hand
// where the export annotation replaces it is reported, with its line, and
// the annotation's value is used (as documented).
func TestImportReportsEditsTheAnnotationOverrides(t *testing.T) {
	for name, path := range exportCases {
		t.Run(name, func(t *testing.T) {
			s := loadExportCase(t, path)
			out, _, err := ExportKubernetes(s, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			if _, err := (config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}).Parse("k8s.yaml", out); err != nil {
				t.Fatal(err)
			}
			for _, w := range warnings {
				if strings.Contains(w, "changed since ostset export") {
					t.Errorf("unedited export: %s", w)
				}
			}
		})
	}
	s := loadExportCase(t, "../examples/web/set.yaml")
	out, _, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The host port keeps template.ports in the annotation.
	edited := strings.Replace(string(out), "containerPort: 8080\n", "containerPort: 8081\n", 1)
	if edited == string(out) {
		t.Fatalf("no containerPort: 8080 to edit in\n%s", out)
	}
	var warnings []string
	sets, err := (config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}).Parse("k8s.yaml", []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	want := "template.ports: changed since ostset export wrote it"
	found := false
	for _, w := range warnings {
		found = found || strings.Contains(w, want)
		if strings.Contains(w, "changed since") && !strings.Contains(w, want) {
			t.Errorf("warning about a field not edited: %s", w)
		}
	}
	if !found {
		t.Errorf("warnings %q, want one starting %q", warnings, want)
	}
	if got := sets[0].Template.Ports[0].ContainerPort; got != 8080 {
		t.Errorf("container port %d, want the annotation's 8080", got)
	}
}
