package preview

import (
	"encoding/json"
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/internal/present"
)

// revisionFields are the set's fields that the revision holds: their changes
// are the revision's (present.RevisionChanges), or where the file was read.
var revisionFields = []string{"template", "volumeClaimTemplates", "serviceName", "network", "networks", "source", "kubernetes"}

// specChanges lists the changes between two specs outside the revision
// (replicas, policies, strategy, retention), one "field old -> new" each.
func specChanges(old, cur config.Set) []string {
	a, b := flat(old), flat(cur)
	var out []string
	for _, k := range present.BothKeys(a, b) {
		before, had := a[k]
		after, has := b[k]
		switch {
		case before == after:
		case !had:
			out = append(out, fmt.Sprintf("%s %s (added)", k, after))
		case !has:
			out = append(out, fmt.Sprintf("%s %s (removed)", k, before))
		default:
			out = append(out, fmt.Sprintf("%s %s -> %s", k, before, after))
		}
	}
	return out
}

// flat maps each leaf of the spec outside revisionFields to its value in
// compact JSON, by its path (updateStrategy.rollingUpdate.partition).
func flat(s config.Set) map[string]string {
	s = s.Clone()
	s.ApplyDefaults()
	data, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	for _, f := range revisionFields {
		delete(m, f)
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if mm, ok := v.(map[string]any); ok && len(mm) > 0 {
			for k, x := range mm {
				walk(prefix+k+".", x)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix[:len(prefix)-1]] = string(b)
	}
	for k, v := range m {
		walk(k+".", v)
	}
	return out
}
