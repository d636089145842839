package kube

import (
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/kube/roundtrip"
)

// DigestAnnotation is the annotation in which earlier exports recorded the
// digests that ExportAnnotation now holds itself (roundtrip.DigestsKey); an
// import still reads it.
const DigestAnnotation = roundtrip.DigestsKey

// importBare maps the first StatefulSet of the objects, as they say it,
// without laying their annotation over it.
func importBare(docs []*yaml.Node) (config.Set, error) {
	k := &kubeImport{bare: true}
	for _, root := range docs {
		d, problems := readKubeDoc("export", root)
		if len(problems) > 0 {
			return config.Set{}, fmt.Errorf("%s", problems[0].Message)
		}
		k.docs = append(k.docs, d)
	}
	sets := k.run()
	switch {
	case len(sets) == 0:
		return config.Set{}, errors.New("no StatefulSet")
	case len(k.bad) > 0: // an invalid manifest does not read alike
		return config.Set{}, fmt.Errorf("%s", k.bad[0])
	}
	return sets[0].Set, nil
}

// normalized is s as an import of it is compared with another: defaults
// applied, pull policies spelt out, and the kept objects by content rather
// than by their text.
func normalized(s config.Set) (map[string]any, error) {
	s = s.Clone()
	s.ApplyDefaults()
	s.Template.ImagePullPolicy = s.Template.PullPolicy()
	for i := range s.Template.InitContainers {
		s.Template.InitContainers[i].ImagePullPolicy = s.Template.InitContainers[i].PullPolicy()
	}
	if k := s.Kubernetes; k != nil {
		k.Written = nil
		for i, c := range k.Carried {
			var v any
			if yaml.Unmarshal([]byte(c.YAML), &v) == nil {
				b, _ := yaml.Marshal(v)
				k.Carried[i].YAML = string(b)
			}
		}
	}
	return roundtrip.Generic(s)
}

// restore gives the objects back in the order and form the imported
// manifest wrote them, wherever that imports as they do.
func restore(k *config.KubernetesNames, docs []*yaml.Node) []*yaml.Node {
	if k == nil || len(k.Written) == 0 {
		return docs
	}
	var written []*yaml.Node
	for _, w := range k.Written {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(w.YAML), &doc) == nil && len(doc.Content) == 1 {
			// ostset's own annotations are the export's to write anew
			roundtrip.DropAnnotations(doc.Content[0], ExportAnnotation, DigestAnnotation)
			written = append(written, doc.Content[0])
		}
	}
	want, err := bareComparable(docs)
	if err != nil {
		return docs
	}
	return roundtrip.Restore(written, docs, func(candidate []*yaml.Node) bool {
		got, err := bareComparable(candidate)
		return err == nil && reflect.DeepEqual(got, want)
	})
}

func bareComparable(docs []*yaml.Node) (map[string]any, error) {
	s, err := importBare(docs)
	if err != nil {
		return nil, err
	}
	return normalized(s)
}

// needed are the kept fields the objects do not say as the set has them:
// the annotation's fields, and the digests of what the objects say there.
func (e *exporter) needed(docs []*yaml.Node) (map[string]any, map[string]string, error) {
	bare, err := importBare(docs)
	if err != nil {
		return nil, nil, err
	}
	says, err := normalized(bare)
	if err != nil {
		return nil, nil, err
	}
	has, err := normalized(e.set)
	if err != nil {
		return nil, nil, err
	}
	asSaid, err := roundtrip.Generic(bare) // as an import compares the digests
	if err != nil {
		return nil, nil, err
	}
	fields, digests := map[string]any{}, map[string]string{}
	for _, f := range e.kept {
		if roundtrip.DigestAt(says, f.path) == roundtrip.DigestAt(has, f.path) {
			continue
		}
		put(fields, f.path, f.value)
		digests[roundtrip.PathKey(f.path)] = roundtrip.DigestAt(asSaid, f.path)
	}
	return fields, digests, nil
}

// put sets the value at path of a nested map.
func put(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
