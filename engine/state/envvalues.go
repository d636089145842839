package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
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

// CheckEnvValues refuses, before anything is written, a set whose variables
// refer to keys of Secrets or ConfigMaps (envRefs) whose values neither these
// files give nor an earlier up kept in the state directory: its replicas
// could not be created.
func (st Store) CheckEnvValues(sets []config.Set, files []config.ConfigFile) error {
	writing := map[string]bool{}
	for _, f := range files {
		writing[filepath.Join(f.Dir, f.Name)] = true
	}
	var errs []error
	for _, s := range sets {
		check := func(path string, refs map[string]envref.Ref) {
			missing := st.MissingEnvValues(s.Name, refs, writing)
			if len(missing) == 0 {
				return
			}
			slices.Sort(missing)
			at := s.Source
			if line := s.Lines[path]; line > 0 {
				file, _, _ := strings.Cut(s.Source, ":")
				at = fmt.Sprintf("%s:%d", file, line)
			}
			errs = append(errs, fmt.Errorf("%s: %s: no value kept for %s: give the Secrets and ConfigMaps with the set (ostset up -f manifest.yaml -f secret.yaml)", at, path, strings.Join(missing, ", ")))
		}
		check("template.envRefs", s.Template.EnvRefs)
		for i, c := range s.Template.InitContainers {
			check(fmt.Sprintf("template.initContainers[%d].envRefs", i), c.EnvRefs)
		}
	}
	return errors.Join(errs...)
}
