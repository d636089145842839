package present

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
)

// BothKeys are the keys of a and b, sorted, each once.
func BothKeys(a, b map[string]string) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// RevisionChanges says what changed from revision prev to cur, field by
// field: "image ostset/web:1 -> :2", "env.VERSION 1 -> 2", "args added".
// Fields of the template are named without "template.".
func RevisionChanges(prev, cur config.RevisionSpec) []string {
	a, b := flatSpec(prev), flatSpec(cur)
	keys := BothKeys(a, b)
	var out []string
	imageChanged := a["image"] != b["image"]
	for _, k := range keys {
		before, had := a[k]
		after, has := b[k]
		switch {
		case before == after:
			continue
		case k == "imageID":
			if !imageChanged {
				out = append(out, fmt.Sprintf("image %s rebuilt (%s -> %s)", b["image"], shortImageID(before), shortImageID(after)))
			}
		case k == "restartedAt":
			out = append(out, "restarted")
		case k == "image":
			out = append(out, "image "+before+" -> "+sameRepo(before, after))
		case isValueDigest(k):
			// A digest of a Secret's value says nothing to a reader, and
			// must not help one guess the value.
			if had && has {
				out = append(out, strings.TrimSuffix(k, ".digest")+" value changed")
			}
		case !had:
			out = append(out, k+" "+after+" (added)")
		case !has:
			out = append(out, k+" "+before+" (removed)")
		default:
			out = append(out, k+" "+before+" -> "+after)
		}
	}
	return out
}

// sameRepo shortens after to ":tag" when only the tag changed.
func sameRepo(before, after string) string {
	i, j := strings.LastIndex(before, ":"), strings.LastIndex(after, ":")
	if i > 0 && j > 0 && before[:i] == after[:j] && !strings.Contains(before[i:], "/") && !strings.Contains(after[j:], "/") {
		return after[j:]
	}
	return after
}

func shortImageID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	return id[:min(12, len(id))]
}

// flatSpec maps each leaf field of spec to its value: maps are walked
// (env.VERSION), lists and scalars are leaves in compact JSON.
func flatSpec(spec config.RevisionSpec) map[string]string {
	data, _ := json.Marshal(spec)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	out := map[string]string{}
	flatten("", m, out)
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			if prefix == "" && k == "template" {
				key = ""
			}
			flatten(key, x, out)
		}
	case string:
		out[prefix] = t
	case nil:
	default:
		data, _ := json.Marshal(t)
		out[prefix] = string(data)
	}
}

// isValueDigest says whether a flattened field is the digest of a value a
// variable takes from a Secret or ConfigMap (envRefs.NAME.digest).
func isValueDigest(k string) bool {
	return strings.HasSuffix(k, ".digest") && (strings.HasPrefix(k, "envRefs.") || strings.Contains(k, ".envRefs."))
}
