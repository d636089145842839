package roundtrip

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func docs(t *testing.T, text string) []*yaml.Node {
	t.Helper()
	var out []*yaml.Node
	for d := range strings.SplitSeq(text, "---\n") {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(d), &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n.Content[0])
	}
	return out
}

func encode(t *testing.T, ns []*yaml.Node) string {
	t.Helper()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, n := range ns {
		if err := enc.Encode(n); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

const written = `kind: Service
metadata: {name: web}
spec:
  clusterIP: None
---
# the set
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "web"
  template:
    spec:
      containers:
      - name: b
        image: b
        env: [{name: Z, value: "1"}, {name: A, value: "2"}]
      - name: a
        image: a
        resources: {limits: {cpu: "500m"}}
`

const generated = `kind: StatefulSet
metadata:
  name: web
spec:
  podManagementPolicy: OrderedReady
  serviceName: web
  template:
    spec:
      containers:
        - name: a
          image: a
          resources: {limits: {cpu: "0.5"}}
        - name: b
          image: b
          env: [{name: A, value: "2"}, {name: Z, value: "1"}, {name: OSTSET_SET, value: web}]
---
kind: Service
metadata: {name: web}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
---
kind: PodDisruptionBudget
metadata: {name: web}
`

// Every step back to the written form that the importer accepts is taken:
// the written objects' order, keys, items, quotes and values; defaults and
// items the manifest did not have are left out; an object not written
// comes last.
func TestRestoreGivesBackTheWrittenForm(t *testing.T) {
	got := encode(t, Restore(docs(t, written), docs(t, generated), func([]*yaml.Node) bool { return true }))
	want := `kind: Service
metadata: {name: web}
spec:
  clusterIP: None
---
# the set
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "web"
  template:
    spec:
      containers:
        - name: b
          image: b
          env: [{name: Z, value: "1"}, {name: A, value: "2"}]
        - name: a
          image: a
          resources: {limits: {cpu: "500m"}}
---
kind: PodDisruptionBudget
metadata: {name: web}
`
	if got != want {
		t.Errorf("restored\n%s\nwant\n%s", got, want)
	}
}

// A step the importer refuses (it would import otherwise) is not taken:
// the generated value, key or item stays, in the written order.
func TestRestoreKeepsWhatWouldImportOtherwise(t *testing.T) {
	got := encode(t, Restore(docs(t, written), docs(t, generated), func([]*yaml.Node) bool { return false }))
	for _, want := range []string{`cpu: "0.5"`, "podManagementPolicy: OrderedReady", "publishNotReadyAddresses: true",
		"{name: Z, value: \"1\"}, {name: A, value: \"2\"}, {name: OSTSET_SET, value: web}", "serviceName: \"web\""} {
		if !strings.Contains(got, want) {
			t.Errorf("restored without %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "kind: Service") > strings.Index(got, "kind: StatefulSet") {
		t.Errorf("not in the written order:\n%s", got)
	}
}

// A key a cluster needs (the selector) stays even where the manifest had none.
func TestRestoreKeepsRequiredKeys(t *testing.T) {
	w := docs(t, "kind: StatefulSet\nmetadata: {name: web}\nspec: {}\n")
	g := docs(t, "kind: StatefulSet\nmetadata: {name: web}\nspec: {selector: {matchLabels: {a: b}}}\n")
	if got := encode(t, Restore(w, g, func([]*yaml.Node) bool { return true })); !strings.Contains(got, "selector") {
		t.Errorf("selector left out:\n%s", got)
	}
}

// The annotation holds the digests itself; the separate annotation earlier
// exports wrote is still read.
func TestSplitReadsBothForms(t *testing.T) {
	digests := map[string]string{"template.ports": "e0b5e4904522"}
	v, err := Encode(map[string]any{"network": "backend"}, digests)
	if err != nil {
		t.Fatal(err)
	}
	for name, annotations := range map[string]map[string]string{
		"one":     {Annotation: v},
		"earlier": {Annotation: `{"network":"backend"}`, DigestsKey: `{"template.ports":"e0b5e4904522"}`},
	} {
		frag, got, err := Split(annotations)
		if err != nil || frag != `{"network":"backend"}` || !maps.Equal(got, digests) {
			t.Errorf("%s: fragment %s, digests %v, %v; want the network and %v", name, frag, got, err, digests)
		}
	}
	if frag, got, err := Split(map[string]string{Annotation: `{"network":"x"}`}); err != nil || got != nil || frag != `{"network":"x"}` {
		t.Errorf("without digests: %s, %v, %v", frag, got, err)
	}
	if _, _, err := Split(map[string]string{Annotation: `{"ostset.io/manifest-digests": [1]}`}); err == nil || !strings.Contains(err.Error(), Annotation) {
		t.Errorf("bad digests: %v, want an error naming the annotation", err)
	}
}

// SetAnnotation adds the annotation after those the object has.
func TestSetAnnotation(t *testing.T) {
	n := docs(t, "kind: StatefulSet\nmetadata:\n  name: web\n  annotations: {a: b}\n")[0]
	SetAnnotation(n, Annotation, "{}")
	if got := encode(t, []*yaml.Node{n}); !strings.Contains(got, `{a: b, ostset.io/set-fields: '{}'}`) {
		t.Errorf("got\n%s", got)
	}
}
