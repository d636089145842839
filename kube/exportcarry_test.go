package kube

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ostset/ostset/config"
)

// The tutorials' manifests, imported and exported, give back what ostset
// does not apply as it was written: the ZooKeeper tutorial's podAntiAffinity,
// livenessProbe, requests, client Service zk-cs and PodDisruptionBudget
// zk-pdb. Each document decodes strictly as its kind; the whole is pinned by
// a golden file (go test ./kube -run TestExportOfImportGolden -update).
func TestExportOfImportGolden(t *testing.T) {
	for _, name := range []string{"zookeeper", "web"} {
		t.Run(name, func(t *testing.T) {
			sets, _, _, err := importFixture(t, false, name)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := ExportKubernetes(sets[0], ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, doc := range splitDocs(t, out) {
				var meta struct{ Kind string }
				if err := sigsyaml.Unmarshal(doc, &meta); err != nil {
					t.Fatal(err)
				}
				kinds[meta.Kind]++
				var obj any
				switch meta.Kind {
				case "StatefulSet":
					var sts appsv1.StatefulSet
					obj = &sts
					defer func() {
						c := sts.Spec.Template.Spec.Containers[0]
						if name == "zookeeper" && (sts.Spec.Template.Spec.Affinity == nil || c.LivenessProbe == nil || c.Resources.Requests.Memory().String() != "1Gi") {
							t.Errorf("affinity %v, livenessProbe %v, requests %v: want the manifest's", sts.Spec.Template.Spec.Affinity, c.LivenessProbe, c.Resources.Requests)
						}
					}()
				case "Service":
					obj = &corev1.Service{}
				case "PodDisruptionBudget":
					obj = &policyv1.PodDisruptionBudget{}
				default:
					t.Fatalf("a %s in the export", meta.Kind)
				}
				if err := sigsyaml.UnmarshalStrict(doc, obj); err != nil {
					t.Errorf("%s does not decode strictly: %v\n%s", meta.Kind, err, doc)
				}
			}
			if want := map[string]int{"StatefulSet": 1, "Service": 2, "PodDisruptionBudget": 1}; name == "zookeeper" && (kinds["Service"] != want["Service"] || kinds["PodDisruptionBudget"] != 1) {
				t.Errorf("objects %v, want %v", kinds, want)
			}
			// Applied again, the export is the same set, and edits nothing.
			var warnings []string
			back, err := (config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}).Parse("export.yaml", out)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := back[0].RevisionSpec("sha256:x").Hash(), sets[0].RevisionSpec("sha256:x").Hash(); got != want {
				t.Errorf("the export imports to revision %s, want %s", got, want)
			}
			for _, w := range warnings {
				if strings.Contains(w, "changed since") {
					t.Errorf("re-import: %s", w)
				}
			}
			golden := filepath.Join("testdata", "export", name+"-import.golden")
			if *updateGolden {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(want) {
				t.Errorf("export differs from %s:\n%s", golden, out)
			}
		})
	}
}

// A set file's kubernetes.carried that is not one YAML value, or names no
// place of the manifest, is an error of the export, not a broken manifest.
func TestExportRefusesABadCarriedPiece(t *testing.T) {
	sets, _, _, err := importFixture(t, false, "zookeeper")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []config.KubernetesCarried{{Path: "pod.affinity", YAML: "a: [\n"}, {Path: "pod.affinity", YAML: ""}, {Path: "status.x", YAML: "1\n"}} {
		s := sets[0].Clone()
		s.Kubernetes.Carried = []config.KubernetesCarried{c}
		if _, _, err := ExportKubernetes(s, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "kubernetes.carried") {
			t.Errorf("%+v: error %v, want one naming kubernetes.carried", c, err)
		}
	}
}

// The export of an imported manifest defines only the replica variables it
// refers to: here none, as --id=$(ORD) is written back as the manifest had it.
func TestExportOfImportKeepsOnlyUsedRuntimeVariables(t *testing.T) {
	sets, err := parseWithManifests("k.yaml", []byte(sts(`containers:
- name: a
  image: x:1
  args: ["--id=$(ORD)"]
  env: [{name: ORD, valueFrom: {fieldRef: {fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}}]`)))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := ExportKubernetes(sets[0], ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sts, _ := decodeExport(t, out)
	var names []string
	for _, v := range sts.Spec.Template.Spec.Containers[0].Env {
		names = append(names, v.Name)
	}
	if args := sts.Spec.Template.Spec.Containers[0].Args; !slices.Equal(names, []string{"ORD"}) || !slices.Equal(args, []string{"--id=$(ORD)"}) {
		t.Errorf("env %v, args %v; want ORD and --id=$(ORD), as the manifest wrote them", names, args)
	}
}
