package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/ostset/ostset/config/envref"
)

// EnvValue reads the value that ref, a variable of set, refers to: written
// with the manifest's files (WriteConfigFiles) by the up that applied it.
func (s Store) EnvValue(set string, ref envref.Ref) (string, error) {
	b, err := os.ReadFile(ref.Path(s.ConfigDir(), set))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("the key %q of %s %q is not in %s: apply the manifest that has the %s with ostset up -f", ref.Key, ref.Kind, ref.Name, s.ConfigDir(), ref.Kind)
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// MissingEnvValues names the references among refs whose values are neither
// kept for set nor about to be written (files, from the files being applied).
func (s Store) MissingEnvValues(set string, refs map[string]envref.Ref, files map[string]bool) []string {
	var out []string
	for name, ref := range refs {
		path := ref.Path(s.ConfigDir(), set)
		if _, err := os.Stat(path); err != nil && !files[path] {
			out = append(out, fmt.Sprintf("%s (the key %q of %s %q)", name, ref.Key, strings.ToLower(ref.Kind), ref.Name))
		}
	}
	return out
}
