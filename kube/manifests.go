package kube

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// Manifests reads the Kubernetes objects of set files (config.Manifests):
// an apps/v1 StatefulSet becomes a set (see docs/set-file.md), with the
// headless Service its serviceName names and the ConfigMaps and Secrets its
// volumes and variables use; other objects are skipped with a warning.
// Manifests are not interpolated: kubectl does not.
type Manifests struct{}

// Claims reports whether a document is a Kubernetes object (it says its
// apiVersion or kind) rather than a set.
func (Manifests) Claims(root *yaml.Node) bool { return isKubernetes(root) }

// Read starts a reading of the objects of the files a loader reads.
func (Manifests) Read(l config.Loader) config.ManifestReading {
	return &reading{k: &kubeImport{configDir: l.ConfigDir}, lenient: l.Lenient, warn: l.Warn}
}

type reading struct {
	k       *kubeImport
	lenient bool
	warn    func(string)
}

func (r *reading) Add(file string, root *yaml.Node) []error {
	d, problems := readKubeDoc(file, root)
	if len(problems) > 0 {
		return formatProblems(file, problems)
	}
	r.k.docs = append(r.k.docs, d)
	return nil
}

func (r *reading) Sets() ([]config.Imported, []config.ConfigFile, []error) {
	var sets []config.Imported
	for _, imp := range r.k.run() {
		if !imp.bad {
			sets = append(sets, imp.Imported)
		}
	}
	var errs []error
	for _, p := range sortProblems(r.k.bad) {
		errs = append(errs, fmt.Errorf("%s", p))
	}
	for _, p := range sortProblems(r.k.errs) {
		switch {
		case !r.lenient:
			errs = append(errs, fmt.Errorf("%s (--lenient to go on without it)", p))
		case r.warn != nil:
			r.warn(p.String() + " (ignored: --lenient)")
		}
	}
	if r.warn != nil {
		for _, p := range sortProblems(r.k.notes) {
			r.warn(p.String())
		}
	}
	return sets, r.k.files, errs
}

// problem is a problem at a line of a manifest, with the path of the field.
type problem struct {
	line          int
	path, message string
}

type fileProblem struct {
	file string
	problem
}

func (p fileProblem) String() string {
	if p.path == "" {
		return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.message)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.file, p.line, p.path, p.message)
}

// formatProblems writes each problem as "FILE:LINE: path: message", by line.
func formatProblems(file string, problems []problem) []error {
	slices.SortStableFunc(problems, func(a, b problem) int { return a.line - b.line })
	errs := make([]error, 0, len(problems))
	for _, p := range problems {
		errs = append(errs, fmt.Errorf("%s", fileProblem{file, p}))
	}
	return errs
}

// sortProblems orders problems by file (as given) and line.
func sortProblems(ps []fileProblem) []fileProblem {
	slices.SortStableFunc(ps, func(a, b fileProblem) int {
		if a.file != b.file {
			return 0
		}
		return a.line - b.line
	})
	return ps
}

// kindName words a YAML node's kind for a message, as the set-file reader
// does.
func kindName(k yaml.Kind, value string) string {
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

// joinPath joins a set-file path and a field name.
func joinPath(parent, field string) string {
	if parent == "" {
		return field
	}
	return parent + "." + field
}

func ptr[T any](v T) *T { return &v }

const maxPort = 65535
