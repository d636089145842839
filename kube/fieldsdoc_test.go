package kube

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ostset/ostset/config"
)

// fieldsBase is the manifest each field is tried in: a headless Service,
// a StatefulSet with one container, one init container, one claim and one
// emptyDir volume, and a ConfigMap and a Secret for volumes to take.
const fieldsBase = `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{name: http, port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: init, image: "busybox:1"}]
      containers:
      - name: web
        image: "nginx:1"
        ports: [{name: http, containerPort: 80}]
        volumeMounts: [{name: data, mountPath: /data}, {name: tmp, mountPath: /tmp}]
      volumes: [{name: tmp, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: s}
stringData: {k: v}
`

// fieldTables are the objects docs/kubernetes.md lists field by field: the
// document (0: the Service, 1: the StatefulSet), the path in it, and the
// upstream type whose fields those are.
var fieldTables = []struct {
	name string
	doc  int
	path string
	typ  reflect.Type
}{
	{"StatefulSet spec", 1, "spec", reflect.TypeFor[appsv1.StatefulSetSpec]()},
	{"StatefulSet metadata", 1, "metadata", reflect.TypeFor[metav1.ObjectMeta]()},
	{"pod template metadata", 1, "spec.template.metadata", reflect.TypeFor[metav1.ObjectMeta]()},
	{"pod spec", 1, "spec.template.spec", reflect.TypeFor[corev1.PodSpec]()},
	{"container", 1, "spec.template.spec.containers.0", reflect.TypeFor[corev1.Container]()},
	{"init container", 1, "spec.template.spec.initContainers.0", reflect.TypeFor[corev1.Container]()},
	{"volume claim template spec", 1, "spec.volumeClaimTemplates.0.spec", reflect.TypeFor[corev1.PersistentVolumeClaimSpec]()},
	{"pod volume", 1, "spec.template.spec.volumes.0", reflect.TypeFor[corev1.Volume]()},
	{"headless Service spec", 0, "spec", reflect.TypeFor[corev1.ServiceSpec]()},
}

// fieldDisposition tries one field with a value of its type and says what
// ostset does with it: refused (an error, a warning with --lenient),
// carried (a note, kept for an export), noted (a note, not kept), applied
// (it changes the set), or kept (it changes nothing: read by nothing,
// written back by an export as it was).
func fieldDisposition(t *testing.T, doc int, path, field string, typ reflect.Type) string {
	t.Helper()
	var docs []*yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(fieldsBase))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			break
		}
		docs = append(docs, n.Content[0])
	}
	var value yaml.Node
	sample, ok := samples[path+"."+field]
	if !ok {
		sample, ok = samples[field]
	}
	if !ok {
		sample = sampleValue(typ)
	}
	if err := yaml.Unmarshal([]byte(sample), &value); err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	at := docs[doc]
	for _, k := range strings.Split(path, ".") {
		if at.Kind == yaml.SequenceNode {
			at = at.Content[0]
			continue
		}
		at = mapValue(at, k)
	}
	if strings.HasSuffix(path, "volumes.0") && field != "name" {
		at.Content = at.Content[:2] // the volume's name, without its emptyDir
	}
	set := false
	for i := 0; i+1 < len(at.Content); i += 2 {
		if at.Content[i].Value == field {
			at.Content[i+1], set = value.Content[0], true
		}
	}
	if !set {
		at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: field}, value.Content[0])
	}
	var b bytes.Buffer
	for _, d := range docs {
		out, _ := yaml.Marshal(d)
		b.Write(out)
		b.WriteString("---\n")
	}
	read := func(text []byte) ([]config.Set, []string, error) {
		var warnings []string
		l := config.Loader{Manifests: Manifests{}, Lenient: true, Warn: func(m string) { warnings = append(warnings, m) }, ConfigDir: "/state"}
		sets, err := l.Parse("m.yaml", text)
		return sets, warnings, err
	}
	sets, warnings, err := read(b.Bytes())
	base, _, _ := read([]byte(fieldsBase))
	if err != nil {
		return "applied" // read, and refused as invalid: this value is not one it takes
	}
	where := strings.ReplaceAll(path, ".0", "[0]")
	for _, w := range warnings {
		switch {
		case !strings.Contains(w, where+"."+field) && (!strings.Contains(w, where+":") || !strings.Contains(w, field)):
		case strings.HasSuffix(w, "(ignored: --lenient)"):
			return "refused"
		case strings.Contains(w, "(kept for an export, not applied)"):
			return "carried"
		case strings.HasSuffix(w, "(not applied)"):
			return "noted"
		}
	}
	strip := func(s config.Set) string {
		s.Source, s.Kubernetes = "", nil
		j, _ := json.Marshal(s)
		return string(j)
	}
	switch {
	case len(sets) != 1 || len(base) != 1 || strip(sets[0]) != strip(base[0]):
		return "applied"
	case !reflect.DeepEqual(keptNames(sets[0]), keptNames(base[0])):
		return "identity"
	}
	return "kept"
}

func keptNames(s config.Set) any {
	if s.Kubernetes == nil {
		return nil
	}
	k := *s.Kubernetes
	k.Written = nil
	return k
}

// samples are values that say something where an empty one would not.
var samples = map[string]string{
	"updateStrategy":                       "{type: OnDelete}",
	"persistentVolumeClaimRetentionPolicy": "{whenDeleted: Delete}",
	"ordinals":                             "{start: 1}",
	"securityContext":                      "{runAsUser: 1000}",
	"resources":                            `{limits: {cpu: "1"}}`,
	"spec.volumeClaimTemplates.0.spec.resources": "{requests: {storage: 2Gi}}",
	"affinity":      "{podAntiAffinity: {}}",
	"selector":      "{app: web, tier: x}",
	"spec.selector": "{matchLabels: {app: web, tier: x}}",
	"spec.volumeClaimTemplates.0.spec.selector": "{matchLabels: {a: b}}",
	"configMap": "{name: c}",
	"secret":    "{secretName: s}",
	"emptyDir":  "{sizeLimit: 64Mi}",
}

// sampleValue is a YAML value of a Go type of the Kubernetes API.
func sampleValue(typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.String() {
	case "resource.Quantity":
		return `"1"`
	case "intstr.IntOrString":
		return "1"
	case "v1.Time":
		return `"2026-01-01T00:00:00Z"`
	}
	switch typ.Kind() {
	case reflect.String:
		return "x"
	case reflect.Bool:
		return "true"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "1"
	case reflect.Map:
		return "{x: y}"
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.String {
			return "[x]"
		}
		return "[" + sampleValue(typ.Elem()) + "]"
	case reflect.Struct:
		return "{}"
	}
	return "x"
}

// jsonFields are a type's fields by their JSON names, inline ones flattened.
func jsonFields(typ reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if strings.Contains(tag, ",inline") || f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		f.Name = name
		out = append(out, f)
	}
	return out
}

// docs/kubernetes.md lists every field of the objects ostset reads, with
// what ostset does with it; each listing is what the import does.
func TestFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### Every field, and what ostset does with it")
	section, _, _ = strings.Cut(section, "\n### ")
	listed := map[string]map[string]string{} // table -> field -> disposition
	table := ""
	for line := range strings.SplitSeq(section, "\n") {
		if h, ok := strings.CutPrefix(line, "#### "); ok {
			table = h
			listed[table] = map[string]string{}
			continue
		}
		cells := strings.Split(line, "|")
		if table == "" || len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		listed[table][strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
	}
	for _, tab := range fieldTables {
		rows, ok := listed[tab.name]
		if !ok {
			t.Errorf("docs/kubernetes.md has no table %q", tab.name)
			continue
		}
		fields := map[string]bool{}
		for _, f := range jsonFields(tab.typ) {
			fields[f.Name] = true
			got := fieldDisposition(t, tab.doc, tab.path, f.Name, f.Type)
			switch want, ok := rows[f.Name]; {
			case !ok:
				t.Errorf("%s: %s is not listed (the import: %s)", tab.name, f.Name, got)
			case want != got:
				t.Errorf("%s: %s is listed %s, the import: %s", tab.name, f.Name, want, got)
			}
		}
		for f := range rows {
			if !fields[f] {
				t.Errorf("%s: %s is listed and is no field of %s", tab.name, f, tab.typ)
			}
		}
	}
}
