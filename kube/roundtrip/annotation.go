package roundtrip

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// Annotation is the one StatefulSet annotation an export adds, and only when
// the manifest cannot say a field of the set exactly: a set-file fragment in
// JSON (the fields, verbatim), with, under DigestsKey, a digest of what the
// manifest itself says at each of them, so that an import can tell a field
// edited since the export (the fragment would replace the edit).
const Annotation = "ostset.io/set-fields"

// DigestsKey is the fragment's key of the digests. It is also the name of
// the annotation in which earlier exports wrote them, beside Annotation; an
// import reads both forms.
const DigestsKey = "ostset.io/manifest-digests"

// Encode writes the annotation's value: the fields, and the digests when
// there are any.
func Encode(fields map[string]any, digests map[string]string) (string, error) {
	v := maps.Clone(fields)
	if len(digests) > 0 {
		v[DigestsKey] = digests
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// Split reads the annotations of a StatefulSet: the set-file fragment to lay
// over the set (without the digests), and the digests, from the fragment or
// from the older separate annotation (nil when neither has them).
func Split(annotations map[string]string) (fragment string, digests map[string]string, err error) {
	fragment = annotations[Annotation]
	if strings.Contains(fragment, DigestsKey) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(fragment), &m); err != nil {
			return "", nil, fmt.Errorf("metadata.annotations[%s]: %w", Annotation, err)
		}
		if raw, ok := m[DigestsKey]; ok {
			if err := json.Unmarshal(raw, &digests); err != nil {
				return "", nil, fmt.Errorf("metadata.annotations[%s]: %s: %w", Annotation, DigestsKey, err)
			}
			delete(m, DigestsKey)
			b, _ := json.Marshal(m) // raw messages of a value that decoded
			fragment = string(b)
		}
	}
	if old, ok := annotations[DigestsKey]; ok && digests == nil {
		if err := json.Unmarshal([]byte(old), &digests); err != nil {
			return "", nil, fmt.Errorf("metadata.annotations[%s]: %w", DigestsKey, err)
		}
	}
	return fragment, digests, nil
}

// SetAnnotation sets metadata.annotations[key] of an object, after the
// annotations it has.
func SetAnnotation(obj *yaml.Node, key, val string) {
	md := value(obj, "metadata")
	if md == nil {
		md = &yaml.Node{Kind: yaml.MappingNode}
		obj.Content = append(obj.Content, str("metadata"), md)
	}
	a := value(md, "annotations")
	if a == nil || a.Kind != yaml.MappingNode {
		a = &yaml.Node{Kind: yaml.MappingNode}
		md.Content = append(md.Content, str("annotations"), a)
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		if a.Content[i].Value == key {
			a.Content[i+1] = str(val)
			return
		}
	}
	a.Content = append(a.Content, str(key), str(val))
}

// DropAnnotations removes the annotations named from an object.
func DropAnnotations(obj *yaml.Node, keys ...string) {
	a := value(value(obj, "metadata"), "annotations")
	if a == nil || a.Kind != yaml.MappingNode {
		return
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(a.Content); i += 2 {
		if !slices.Contains(keys, a.Content[i].Value) {
			kept = append(kept, a.Content[i], a.Content[i+1])
		}
	}
	a.Content = kept
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// Generic is s as the set file writes it, in maps and lists.
func Generic(s config.Set) (map[string]any, error) {
	b, err := yaml.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = yaml.Unmarshal(b, &m)
	return m, err
}

// PathKey joins a set-file path (field names; a map key is one name even
// with dots in it) for the digests.
func PathKey(path []string) string { return strings.Join(path, ".") }

// splitPathKey undoes PathKey for the paths export keeps: the first names are
// set-file fields without dots; a label or variable name after
// "template.labels" or "template.env" may have dots.
func splitPathKey(key string) []string {
	parts := strings.Split(key, ".")
	if len(parts) > 2 && parts[0] == "template" && (parts[1] == "labels" || parts[1] == "env") {
		return []string{"template", parts[1], strings.Join(parts[2:], ".")}
	}
	return parts
}

// DigestAt digests the value at path of a generic set ("" when absent).
func DigestAt(m map[string]any, path []string) string {
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

// Edited compares the digests an export recorded with what the manifest, as
// imported (before the annotation is laid over it), says now: the paths
// whose text changed since the export, sorted.
func Edited(set config.Set, recorded map[string]string) ([]string, error) {
	generic, err := Generic(set)
	if err != nil {
		return nil, err
	}
	var edited []string
	for _, key := range slices.Sorted(maps.Keys(recorded)) {
		if DigestAt(generic, splitPathKey(key)) != recorded[key] {
			edited = append(edited, key)
		}
	}
	return edited, nil
}
