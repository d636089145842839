// Package envref holds the variables whose values are keys of Kubernetes
// ConfigMaps and Secrets (env valueFrom configMapKeyRef and secretKeyRef):
// the set keeps the reference and a digest of the value, never the value,
// which is kept in the state directory and given to each replica when it is
// created. describe, export, events and labels show the reference only.
package envref

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The kinds of object a variable can refer to.
const (
	Secret    = "Secret"
	ConfigMap = "ConfigMap"
)

// Ref is one variable's reference to a key of a ConfigMap or Secret.
type Ref struct {
	Kind string `yaml:"kind" json:"kind"` // Secret or ConfigMap
	Name string `yaml:"name" json:"name"`
	Key  string `yaml:"key" json:"key"`
	// Digest is Digest of the value the set was applied with: part of the
	// revision, so that a new value rolls the set as a new template does.
	Digest string `yaml:"digest" json:"digest"`
}

// String says where the value comes from, in kubectl describe's words.
func (r Ref) String() string {
	if r.Kind == ConfigMap {
		return fmt.Sprintf("<set to the key '%s' of config map '%s'>", r.Key, r.Name)
	}
	return fmt.Sprintf("<set to the key '%s' in secret '%s'>", r.Key, r.Name)
}

// Digest digests a value for Ref.Digest.
func Digest(value []byte) string {
	sum := sha256.Sum256(value)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// Dir is the directory, under the directory of a set's manifest files
// (config.Loader.ConfigDir joined with the set's name), that holds the
// values of its variables. A volume's directory there is a DNS label, which
// has no '_': the two never meet.
const Dir = "_env"

// Path is where the value of r is kept for set, under configDir.
func (r Ref) Path(configDir, set string) string {
	return filepath.Join(configDir, set, Dir, strings.ToLower(r.Kind), r.Name, r.Key)
}

// keyRe is what Kubernetes allows as a ConfigMap or Secret key.
var keyRe = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// nameRe is a DNS-1123 subdomain, an object's name.
var nameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// Problem is one wrong reference, at the variable's name.
type Problem struct {
	Name, Message string
}

// Check checks refs, the references of a container whose plain variables are
// env: a name has one value.
func Check(env map[string]string, refs map[string]Ref) []Problem {
	var out []Problem
	for _, name := range slices.Sorted(maps.Keys(refs)) {
		r := refs[name]
		msg := ""
		switch {
		case name == "" || strings.Contains(name, "="):
			msg = fmt.Sprintf("invalid variable name %q: must be non-empty and must not contain '='", name)
		case strings.HasPrefix(name, "OSTSET_"):
			msg = "the OSTSET_ prefix is reserved for the variables ostset sets"
		case hasKey(env, name):
			msg = "the variable is in env too: it has one value"
		case r.Kind != Secret && r.Kind != ConfigMap:
			msg = fmt.Sprintf("kind %q: must be Secret or ConfigMap", r.Kind)
		case len(r.Name) > 253 || !nameRe.MatchString(r.Name):
			msg = fmt.Sprintf("name %q: must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')", r.Name)
		case len(r.Key) > 253 || !keyRe.MatchString(r.Key) || r.Key == "." || r.Key == "..":
			msg = fmt.Sprintf("key %q: must be letters, digits, '-', '_' and '.', and not . or ..", r.Key)
		case r.Digest == "":
			msg = "no digest: the reference comes from a Kubernetes manifest's env valueFrom"
		}
		if msg != "" {
			out = append(out, Problem{Name: name, Message: msg})
		}
	}
	return out
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
