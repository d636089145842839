// Package yamlnode holds what the readers of YAML documents share: the
// set-file reader (package config) and the Kubernetes import (package kube).
// It words a node's kind for a message, joins and walks field paths
// ("template.ports[0].hostPort"), finds the line of a path, and writes
// problems as "FILE:LINE: path: message". It imports the YAML library only:
// never config, kube, compose, the engine or the Docker SDK.
package yamlnode

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// KindName words a node's kind for a message: "a mapping", "a list", the
// quoted value of a scalar, or "a single value" for an empty one.
func KindName(k yaml.Kind, value string) string {
	switch k {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if value != "" {
			return fmt.Sprintf("%q", value)
		}
		return "a single value"
	}
	return "something else"
}

// Join joins a field path and a field name.
func Join(parent, field string) string {
	if parent == "" {
		return field
	}
	return parent + "." + field
}

// LineOf returns the line lines holds for path, or for its closest ancestor
// there when the field itself is missing (a required field); ok is false
// when lines holds none of them.
func LineOf(lines map[string]int, path string) (line int, ok bool) {
	for path != "" {
		if l, ok := lines[path]; ok {
			return l, true
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0, false
}

// Problem is a problem at a line of a document, with the path of the field
// ("" for the document itself).
type Problem struct {
	Line          int
	Path, Message string
}

// FileProblem is a problem of a named file.
type FileProblem struct {
	File string
	Problem
}

// String is "FILE:LINE: path: message", or "FILE:LINE: message" without a path.
func (p FileProblem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Path, p.Message)
}

// Errors writes each problem of file as an error "FILE:LINE: path: message",
// in the order of their lines (problems are sorted in place).
func Errors(file string, problems []Problem) []error {
	slices.SortStableFunc(problems, func(a, b Problem) int { return a.Line - b.Line })
	var errs []error
	for _, p := range problems {
		errs = append(errs, fmt.Errorf("%s", FileProblem{file, p}))
	}
	return errs
}
