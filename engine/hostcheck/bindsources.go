// Package hostcheck holds pure checks of sets against what the engine's host
// has: here, that each bind source exists. The engine's preflight asks the
// runtime and reports what they find.
package hostcheck

import (
	"fmt"
	"strings"

	"github.com/ostset/ostset/config"
)

// The check of bind sources: each replica's source, its {{...}} expanded
// for the replica, must exist on the engine's host (Docker does not create
// it). MissingBindSources asks the host, CheckBindSources reports.

// bindMount is a bind mount of one replica: the field it comes from, and
// its source expanded for the replica.
type bindMount struct{ path, source, replica string }

// bindMounts lists the bind mounts of the set's containers with their field
// paths (a source that is an absolute path; see plan's userMounts), for each desired
// ordinal: a source that holds {{...}} is one path per replica. A source that
// does not expand is left to the set's validation.
func bindMounts(s config.Set) []bindMount {
	var out []bindMount
	ordinals := s.ReplicaVars(s.ServiceName, s.FirstOrdinal()).Ordinals
	add := func(prefix string, ms []config.VolumeMount) {
		for i, m := range ms {
			path := fmt.Sprintf("%s.volumeMounts[%d].source", prefix, i)
			if !strings.Contains(m.Source, "{{") {
				if strings.HasPrefix(m.Source, "/") {
					out = append(out, bindMount{path: path, source: m.Source})
				}
				continue
			}
			seen := map[string]bool{}
			for _, ord := range ordinals {
				v := s.ReplicaVars(s.ServiceName, ord)
				src, err := config.ExpandString(m.Source, v)
				if err != nil || !strings.HasPrefix(src, "/") || seen[src] {
					continue
				}
				seen[src] = true
				out = append(out, bindMount{path: path, source: src, replica: v.Name})
			}
		}
	}
	add("template", s.Template.VolumeMounts)
	for i, ic := range s.Template.InitContainers {
		add(fmt.Sprintf("template.initContainers[%d]", i), ic.VolumeMounts)
	}
	return out
}

// MissingBindSources are the bind sources of sets that exists says are known
// not to exist (engine.Host.Missing); nil if none.
func MissingBindSources(sets []config.Set, exists func(path string) (exists, known bool)) map[string]bool {
	var missing map[string]bool
	for _, s := range sets {
		for _, m := range bindMounts(s) {
			if ok, known := exists(m.source); known && !ok {
				if missing == nil {
					missing = map[string]bool{}
				}
				missing[m.source] = true
			}
		}
	}
	return missing
}

// CheckBindSources reports each bind source of s that is missing, with the
// replica whose source it is when the source is templated.
func CheckBindSources(s config.Set, missing map[string]bool) []error {
	var errs []error
	for _, m := range bindMounts(s) {
		if !missing[m.source] {
			continue
		}
		of := ""
		if m.replica != "" {
			of = " (for " + m.replica + ")"
		}
		errs = append(errs, fmt.Errorf("%s: %s: bind source %s%s does not exist on the engine's host (Docker does not create it)",
			s.FieldSource(m.path), m.path, m.source, of))
	}
	return errs
}
