package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// inputDifferences are, for each Kubernetes fixture, every way its export
// differs from the manifest as written, as docs/kubernetes.md lists them
// ("What an export adds or leaves out"): none. Cassandra's lifecycle and
// status.podIP variable, which --lenient let ostset go without, come back
// as written too.
var inputDifferences = map[string][]string{
	"web":       nil,
	"zookeeper": nil,
	"cassandra": nil,
	// Its init containers mount the ConfigMap by a path of the state
	// directory: the one annotation keeps them as the set has them.
	"mysql": {"+ StatefulSet/mysql: metadata.annotations"},
}

// `up -f m.yaml` then `export` gives back m.yaml: the same objects in the
// same order, the same keys in the same order, the same list items
// (containers, ports, variables) in the same order, the same values as
// written, but for the differences listed above. The export is pinned by
// testdata/export/<name>-import.golden (the notes of the import by
// testdata/kubernetes/<name>.golden).
func TestExportGivesBackTheManifest(t *testing.T) {
	for name, want := range inputDifferences {
		t.Run(name, func(t *testing.T) {
			sets, _, _, err := importFixture(t, name == "cassandra" || name == "mysql", name)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := ExportKubernetes(sets[0], ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			in, err := os.ReadFile(filepath.Join("testdata", "kubernetes", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if got := differences(t, in, out); !slices.Equal(got, want) {
				t.Errorf("the export differs from the manifest by\n%s\nwant\n%s\nexport:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
			}
			golden := filepath.Join("testdata", "export", name+"-import.golden")
			if *updateGolden {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if g, err := os.ReadFile(golden); err != nil || !bytes.Equal(g, out) {
				t.Errorf("export differs from %s (%v):\n%s", golden, err, out)
			}
		})
	}
}

// differences lists, document by document, what b adds to a ("+ path"),
// leaves out ("- path") or says otherwise ("~ path"), and a key or list
// item out of a's order ("order path").
func differences(t *testing.T, a, b []byte) []string {
	t.Helper()
	da, db := decodeAll(t, a), decodeAll(t, b)
	var out []string
	if len(da) != len(db) {
		out = append(out, fmt.Sprintf("%d objects, want %d", len(db), len(da)))
	}
	for i := 0; i < min(len(da), len(db)); i++ {
		id := mapValueString(da[i], "kind") + "/" + mapValueString(mapValue(da[i], "metadata"), "name")
		if bid := mapValueString(db[i], "kind") + "/" + mapValueString(mapValue(db[i], "metadata"), "name"); bid != id {
			out = append(out, fmt.Sprintf("object %d: %s, want %s", i, bid, id))
			continue
		}
		diffNode(id+": ", "", da[i], db[i], &out)
	}
	return out
}

func decodeAll(t *testing.T, data []byte) []*yaml.Node {
	t.Helper()
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return docs
		} else if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, n.Content[0])
	}
}

func diffNode(id, path string, a, b *yaml.Node, out *[]string) {
	if a.Kind != b.Kind {
		*out = append(*out, "~ "+id+path)
		return
	}
	switch a.Kind {
	case yaml.ScalarNode:
		if a.Value != b.Value || a.Style != b.Style {
			*out = append(*out, "~ "+id+path)
		}
	case yaml.MappingNode:
		var ak, bk []string
		for i := 0; i+1 < len(a.Content); i += 2 {
			ak = append(ak, a.Content[i].Value)
		}
		for i := 0; i+1 < len(b.Content); i += 2 {
			k := b.Content[i].Value
			bk = append(bk, k)
			if !slices.Contains(ak, k) {
				*out = append(*out, "+ "+id+join(path, k))
			}
		}
		var common []string
		for i, k := range ak {
			bv := mapValue(b, k)
			if bv == nil {
				*out = append(*out, "- "+id+join(path, k))
				continue
			}
			common = append(common, k)
			diffNode(id, join(path, k), a.Content[2*i+1], bv, out)
		}
		if !slices.Equal(common, slices.DeleteFunc(bk, func(k string) bool { return !slices.Contains(common, k) })) {
			*out = append(*out, "order "+id+path)
		}
	case yaml.SequenceNode:
		for i, ai := range a.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if i >= len(b.Content) {
				*out = append(*out, "- "+id+p)
				continue
			}
			diffNode(id, p, ai, b.Content[i], out)
		}
		for i := len(a.Content); i < len(b.Content); i++ {
			*out = append(*out, fmt.Sprintf("+ %s%s[%d]", id, path, i))
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// A manifest exported by an earlier ostset, with the digests in an
// annotation of their own beside ostset.io/set-fields, is read as before:
// the fields are laid over the set, and an edit where they replace the
// manifest is reported.
func TestImportReadsTheEarlierTwoAnnotations(t *testing.T) {
	manifest := `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  annotations:
    ostset.io/manifest-digests: '{"template.ports":"000000000000"}'
    ostset.io/set-fields: '{"template":{"ports":[{"containerPort":8080,"hostPort":18080,"protocol":"tcp"}]}}'
spec:
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1
        ports: [{containerPort: 8081}]
`
	var warnings []string
	sets, err := (config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}).Parse("old.yaml", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if p := sets[0].Template.Ports; len(p) != 1 || p[0].HostPort != 18080 || p[0].ContainerPort != 8080 {
		t.Errorf("ports %+v, want the annotation's", p)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "template.ports: changed since ostset export wrote it") {
		t.Errorf("warnings %q, want the edit of template.ports", warnings)
	}
	if a := sets[0].Kubernetes.Annotations; len(a) != 0 {
		t.Errorf("annotations kept %v, want none of ostset's", a)
	}
	// Its export writes one annotation.
	out, _, err := ExportKubernetes(sets[0], ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), ExportAnnotation+": ") != 1 || strings.Contains(string(out), DigestAnnotation+": ") {
		t.Errorf("want the one annotation %s, with the digests in it:\n%s", ExportAnnotation, out)
	}
}

// A set whose files a cluster mounts from a Secret (a compose secret,
// converted) exports that volume in place of the mount of the files, and
// otherwise as a set file exports.
func TestExportWritesKeptSecretVolumes(t *testing.T) {
	s := config.Set{Name: "db", Template: config.Template{Image: "mysql:8",
		VolumeMounts: []config.VolumeMount{{Source: "/state/db/compose~run~secrets", Target: "/run/secrets", ReadOnly: true}}},
		Kubernetes: &config.KubernetesNames{Volumes: []config.KubernetesVolume{{Name: "run-secrets", Kind: "Secret", Object: "db-run-secrets", MountPath: "/run/secrets", DefaultMode: 0o444}}}}
	out, lost, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 0 {
		t.Errorf("reported %v", lost)
	}
	sts, _ := decodeExport(t, out)
	pod := sts.Spec.Template.Spec
	if len(pod.Volumes) != 1 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != "db-run-secrets" || *pod.Volumes[0].Secret.DefaultMode != 0o444 {
		t.Errorf("volumes %+v", pod.Volumes)
	}
	if m := pod.Containers[0].VolumeMounts; len(m) != 1 || m[0].Name != "run-secrets" || m[0].MountPath != "/run/secrets" || !m[0].ReadOnly {
		t.Errorf("mounts %+v", m)
	}
	if sts.Labels[NameLabel] != "db" || len(pod.Containers[0].Env) != 4 {
		t.Errorf("labels %v, %d variables: want a set file's export", sts.Labels, len(pod.Containers[0].Env))
	}
}

// The restart stamp of ostset rollout restart is written on an imported
// manifest's pod template too (kubectl's restartedAt annotation), though an
// import does not read it.
func TestExportOfAnImportKeepsTheRestartStamp(t *testing.T) {
	sets, _, _, err := importFixture(t, false, "web")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := ExportKubernetes(sets[0], ExportOptions{RestartedAt: "2026-01-02T03:04:05Z"})
	if err != nil {
		t.Fatal(err)
	}
	sts, _ := decodeExport(t, out)
	if got := sts.Spec.Template.Annotations[RestartedAtAnnotation]; got != "2026-01-02T03:04:05Z" {
		t.Errorf("restartedAt %q:\n%s", got, out)
	}
}
