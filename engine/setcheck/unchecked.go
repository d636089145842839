package setcheck

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ostset/ostset/config"
)

// UncheckedBinds are the warnings for the bind sources of sets that cannot be
// checked before a create because the engine (named engine) is not on this
// host (Docker Desktop's VM, a remote engine): a bind source is the user's
// promise about the engine's files. The files of ConfigMap and Secret
// volumes (under configDir) are not bind-mounted, but copied into each
// replica, and need no promise.
func UncheckedBinds(sets []config.Set, configDir, engine string) []string {
	var out []string
	for _, s := range sets {
		check := func(prefix string, ms []config.VolumeMount) {
			for i, m := range ms {
				if !strings.HasPrefix(m.Source, "/") {
					continue // a named volume
				}
				if rel, err := filepath.Rel(configDir, m.Source); err == nil && filepath.IsLocal(rel) {
					continue
				}
				path := fmt.Sprintf("%s.volumeMounts[%d].source", prefix, i)
				out = append(out, fmt.Sprintf("%s: %s: bind source %s is not checked: the engine (%s) is not on this host; the path must exist on the engine's host",
					s.FieldSource(path), path, m.Source, engine))
			}
		}
		check("template", s.Template.VolumeMounts)
		for i, ic := range s.Template.InitContainers {
			check(fmt.Sprintf("template.initContainers[%d]", i), ic.VolumeMounts)
		}
	}
	return out
}
