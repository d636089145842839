package kube

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// DigestAnnotation is the StatefulSet annotation in which an export records,
// for each field its ExportAnnotation keeps, a digest of what the manifest
// itself says there (as an import reads it). An import compares: a field
// whose manifest text was edited after the export no longer matches, and
// since the annotation replaces the manifest's value there, the edit would
// be lost without a word. It is reported instead, field by field.
const DigestAnnotation = "ostset.io/manifest-digests"

// pathKey joins a set-file path (field names; a map key is one name even
// with dots in it) for the digest annotation.
func pathKey(path []string) string { return strings.Join(path, ".") }

// manifestDigests imports the exported manifest without its annotations and
// digests, at each kept path, what the manifest says.
func manifestDigests(manifest []byte, paths [][]string) (map[string]string, error) {
	set, err := importBare(manifest)
	if err != nil {
		return nil, err
	}
	generic, err := genericSet(set)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range paths {
		out[pathKey(p)] = digestAt(generic, p)
	}
	return out, nil
}

// importBare maps the first StatefulSet of manifest, as the manifest says
// it, without laying its annotation over it.
func importBare(manifest []byte) (config.Set, error) {
	k := &kubeImport{bare: true}
	dec := yaml.NewDecoder(bytes.NewReader(manifest))
	for {
		var root yaml.Node
		if err := dec.Decode(&root); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return config.Set{}, err
		}
		if len(root.Content) == 0 {
			continue
		}
		d, problems := readKubeDoc("export", root.Content[0])
		if len(problems) > 0 {
			return config.Set{}, fmt.Errorf("%s", problems[0].Message)
		}
		k.docs = append(k.docs, d)
	}
	for _, imp := range k.run() {
		return imp.Set, nil
	}
	return config.Set{}, errors.New("no StatefulSet")
}

// genericSet is s as the set file writes it, in maps and lists.
func genericSet(s config.Set) (map[string]any, error) {
	b, err := yaml.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = yaml.Unmarshal(b, &m)
	return m, err
}

// digestAt digests the value at path of a generic set ("" when absent).
func digestAt(m map[string]any, path []string) string {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			v = nil
			break
		}
		v = mm[k]
	}
	if isEmpty(v) {
		return ""
	}
	b, err := json.Marshal(v) // map keys sorted: the same value digests alike
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// isEmpty: nil, "", 0, false, an empty list or map say nothing.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case int:
		return v == 0
	case bool:
		return !v
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, x := range v {
			if !isEmpty(x) {
				return false
			}
		}
		return true
	}
	return false
}

// editedFields compares the digests an export recorded with what the
// manifest, as imported (set, before the annotation is laid over it), says
// now: the paths whose text changed since the export, sorted.
func editedFields(set config.Set, recorded string) ([]string, error) {
	var want map[string]string
	if err := json.Unmarshal([]byte(recorded), &want); err != nil {
		return nil, fmt.Errorf("metadata.annotations[%s]: %w", DigestAnnotation, err)
	}
	generic, err := genericSet(set)
	if err != nil {
		return nil, err
	}
	var edited []string
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if digestAt(generic, splitPathKey(key)) != want[key] {
			edited = append(edited, key)
		}
	}
	return edited, nil
}

// splitPathKey undoes pathKey for the paths export keeps: the first names are
// set-file fields without dots; a label or variable name after
// "template.labels" or "template.env" may have dots.
func splitPathKey(key string) []string {
	parts := strings.Split(key, ".")
	if len(parts) > 2 && parts[0] == "template" && (parts[1] == "labels" || parts[1] == "env") {
		return []string{"template", parts[1], strings.Join(parts[2:], ".")}
	}
	return parts
}
