package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/internal/yamlnode"
)

// Manifests reads the documents of set files that describe sets in another
// system's format rather than as sets: package kube reads Kubernetes
// objects. The loader hands it every document it claims, then defaults and
// validates each set it makes like any other, with the problems at the
// manifest's lines.
type Manifests interface {
	// Claims reports whether a document is one of its objects.
	Claims(root *yaml.Node) bool
	// Read starts a reading of the files one LoadFiles reads: an object
	// may use another of another file.
	Read(l Loader) ManifestReading
}

// ManifestReading is one reading of Manifests.
type ManifestReading interface {
	// Add takes a document Claims claimed; its errors are the document's.
	Add(file string, root *yaml.Node) []error
	// Sets maps what was added into sets, before defaults. The errors come
	// after the sets' own; warnings go to the Loader's Warn.
	Sets() ([]Imported, []ConfigFile, []error)
}

// Imported is a set read from a manifest, before defaults.
type Imported struct {
	Set  Set
	File string
	// Lines holds the manifest's line of each set-file path the manifest
	// gave a value; Doc is the line of the document.
	Lines map[string]int
	Doc   int
}

// ConfigFile is a file that a ConfigMap or Secret volume of an imported
// StatefulSet shows: the engine must write it before the set is applied. Dir
// is the volume's mount source (under Loader.ConfigDir), Name the file's path
// inside it.
type ConfigFile struct {
	Dir  string
	Name string
	Data []byte
	Mode uint32 // permission bits, 0644 unless the manifest says otherwise
	GID  int    // the group the file belongs to in the replica (the pod's fsGroup), else 0
	UID  int    // its owner in the replica (a compose secret's uid), else 0
	// Secret: a compose secret's file (a Secret in a cluster), not a config's.
	Secret bool
}

// finishImport defaults and validates a set read from a manifest, with
// validation's problems at the manifest's lines.
func finishImport(imp Imported) (Set, []error) {
	lines := fieldLines{lines: imp.Lines, doc: imp.Doc}
	if lines.lines == nil {
		lines.lines = map[string]int{}
	}
	s := imp.Set
	s.Source = fmt.Sprintf("%s:%d", imp.File, imp.Doc)
	s.Written = lines.written()
	s.ApplyDefaults()
	var problems []yamlnode.Problem
	for _, fe := range s.validate() {
		problems = append(problems, yamlnode.Problem{Line: lines.lineOf(fe.Path), Path: fe.Path, Message: fe.Message})
	}
	return s, yamlnode.Errors(imp.File, problems)
}
