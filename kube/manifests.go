package kube

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/internal/yamlnode"
)

// Manifests reads the Kubernetes objects of set files (config.Manifests):
// an apps/v1 StatefulSet becomes a set (see docs/set-file.md), with the
// headless Service its serviceName names and the ConfigMaps and Secrets its
// volumes and variables use; other objects are skipped with a warning.
// Manifests are not interpolated: kubectl does not.
type Manifests struct {
	// Strict refuses what only a cluster does (affinity, tolerations, a
	// PodDisruptionBudget...), which is otherwise a note: see carry.go.
	Strict bool
}

// Claims reports whether a document is a Kubernetes object (it says its
// apiVersion or kind) rather than a set.
func (Manifests) Claims(root *yaml.Node) bool { return isKubernetes(root) }

// Read starts a reading of the objects of the files a loader reads.
func (m Manifests) Read(l config.Loader) config.ManifestReading {
	return &reading{k: &kubeImport{configDir: l.ConfigDir}, lenient: l.Lenient, strict: m.Strict, warn: l.Warn}
}

type reading struct {
	k       *kubeImport
	lenient bool
	strict  bool
	warn    func(string)
}

func (r *reading) Add(file string, root *yaml.Node) []error {
	d, problems := readKubeDoc(file, root)
	if len(problems) > 0 {
		return yamlnode.Errors(file, problems)
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
	if r.strict {
		for _, p := range sortProblems(r.k.carried) {
			errs = append(errs, fmt.Errorf("%s%s", p, strictSuffix))
		}
	} else {
		r.k.notes = append(r.k.notes, r.k.carried...)
	}
	if r.warn != nil {
		for _, p := range sortProblems(r.k.notes) {
			r.warn(p.String())
		}
	}
	return sets, r.k.files, errs
}

// fileProblemAt is a problem at a line of a file.
func fileProblemAt(file string, line int, path, message string) yamlnode.FileProblem {
	return yamlnode.FileProblem{File: file, Problem: yamlnode.Problem{Line: line, Path: path, Message: message}}
}

// lineOf returns the manifest's line of a set-file path, or of its closest
// ancestor the manifest gave, or of its first item, or the document's line.
func (imp importedSet) lineOf(path string) int {
	if l, ok := yamlnode.LineOf(imp.Lines, path); ok {
		return l
	}
	if l, ok := imp.Lines[path+"[0]"]; ok {
		return l
	}
	return imp.Doc
}

// sortProblems orders problems by file (as given) and line.
func sortProblems(ps []yamlnode.FileProblem) []yamlnode.FileProblem {
	slices.SortStableFunc(ps, func(a, b yamlnode.FileProblem) int {
		if a.File != b.File {
			return 0
		}
		return a.Line - b.Line
	})
	return ps
}

func ptr[T any](v T) *T { return &v }

const maxPort = 65535
