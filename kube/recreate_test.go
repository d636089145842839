package kube

import (
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

// updateStrategy Recreate (Kubernetes 1.37, alpha) is carried in and out,
// without rollingUpdate, which the API server refuses with it; a manifest
// that gives both is refused at its line, as the API server refuses it.
func TestKubernetesRecreateStrategy(t *testing.T) {
	manifest := strings.Replace(sts("containers:\n- {name: c, image: x:1}\n"), "  replicas: 2\n", "  replicas: 2\n  updateStrategy:\n    type: Recreate\n", 1)
	sets, err := parseWithManifests("sts.yaml", []byte(manifest))
	if err != nil {
		t.Fatalf("import: %v\n%s", err, manifest)
	}
	if got := sets[0].UpdateStrategy.Type; got != config.Recreate {
		t.Fatalf("updateStrategy.type %q, want Recreate", got)
	}
	out, _, err := ExportKubernetes(sets[0], ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "updateStrategy:\n    type: Recreate\n") || strings.Contains(string(out), "rollingUpdate") {
		t.Errorf("export:\n%s", out)
	}
	both := strings.Replace(manifest, "    type: Recreate\n", "    type: Recreate\n    rollingUpdate: {partition: 1}\n", 1)
	if _, err := parseWithManifests("sts.yaml", []byte(both)); err == nil || !strings.Contains(err.Error(), "updateStrategy.rollingUpdate.partition: only allowed for updateStrategy.type RollingUpdate, not Recreate") {
		t.Errorf("rollingUpdate with Recreate: %v", err)
	}
}
