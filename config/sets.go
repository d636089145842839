package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ostset/ostset/internal/yamlnode"
)

// CheckSets reports what is wrong with sets that are valid one by one but
// are applied together (the documents of one file, or all the files of one
// `ostset up`): two sets with one name, and host ports that two sets would
// both publish. Each problem is one line "FILE:LINE: field: message" about the
// later set, naming the earlier one; nil when there is none.
func CheckSets(sets []Set) error { return errors.Join(checkSets(sets)...) }

func checkSets(sets []Set) []error {
	var errs []error
	defined := map[string]Set{}
	var ports []publishedPorts
	for _, s := range sets {
		if first, dup := defined[s.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: name: set %q is already defined at %s", s.fieldSource("name"), s.Name, first.fieldSource("name")))
			continue
		}
		defined[s.Name] = s
		mine := s.publishedPorts()
		for _, u := range mine {
			for _, o := range ports {
				if u.overlaps(o) {
					errs = append(errs, fmt.Errorf("%s: %s: host ports %d-%d overlap %d-%d of set %q (%s)",
						s.fieldSource(u.path), u.path, u.lo, u.hi, o.lo, o.hi, o.set, o.source))
				}
			}
		}
		ports = append(ports, mine...)
	}
	return errs
}

// fieldSource is "file:line" of the field at path, as far as the file tells
// (the document's line otherwise).
func (s Set) fieldSource(path string) string {
	file, _, ok := cutLast(s.Source, ":")
	if !ok {
		return s.Source
	}
	if l, ok := yamlnode.LineOf(s.Lines, path); ok {
		return fmt.Sprintf("%s:%d", file, l)
	}
	return s.Source
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// publishedPorts is one ports entry's range of host ports: ordinal i
// publishes on hostPort + i.
type publishedPorts struct {
	set, source, path string
	lo, hi            int
	hostIP, protocol  string
}

func (u publishedPorts) overlaps(o publishedPorts) bool {
	sameIP := o.hostIP == u.hostIP || o.hostIP == "" || u.hostIP == ""
	return sameIP && o.protocol == u.protocol && u.lo <= o.hi && o.lo <= u.hi
}

// publishedPorts lists the host port ranges of s's valid ports entries, for
// the highest ordinal it uses (a set of 0 replicas as if it had 1).
func (s Set) publishedPorts() []publishedPorts {
	s = s.Clone()
	s.ApplyDefaults()
	first := min(max(s.Ordinals.Start, 0), MaxOrdinalStart)
	last := first + min(max(*s.Replicas, 1), MaxReplicas) - 1
	var out []publishedPorts
	for i, p := range s.Template.Ports {
		if p.HostPort <= 0 {
			continue
		}
		path := fmt.Sprintf("template.ports[%d].hostPort", i)
		out = append(out, publishedPorts{s.Name, s.fieldSource(path), path, p.HostPort + first, p.HostPort + last, p.HostIP, p.Protocol})
	}
	return out
}

// FieldSource is "file:line" of the field at path (as "template.ports[0].hostPort"),
// as far as the file tells; the document's line otherwise.
func (s Set) FieldSource(path string) string { return s.fieldSource(path) }
