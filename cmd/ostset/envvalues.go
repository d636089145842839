package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

// checkEnvValues refuses, before anything is written, a set whose variables
// refer to keys of Secrets or ConfigMaps (envRefs) whose values neither these
// files give nor an earlier up kept in the state directory: its replicas
// could not be created.
func (a *app) checkEnvValues(sets []config.Set, files []config.ConfigFile) error {
	writing := map[string]bool{}
	for _, f := range files {
		writing[filepath.Join(f.Dir, f.Name)] = true
	}
	var errs []error
	for _, s := range sets {
		check := func(path string, refs map[string]envref.Ref) {
			missing := a.store().MissingEnvValues(s.Name, refs, writing)
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
