package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/internal/yamlnode"
)

// Load reads the set file at path and parses it; see Parse.
func Load(path string, lookupEnv func(string) (string, bool)) ([]Set, error) {
	return Loader{LookupEnv: lookupEnv}.Load(path)
}

// Parse reads every set in a set file; see Loader.Parse. lookupEnv resolves
// variables (os.LookupEnv in the CLI); nil means none is set.
func Parse(filename string, data []byte, lookupEnv func(string) (string, bool)) ([]Set, error) {
	return Loader{LookupEnv: lookupEnv}.Parse(filename, data)
}

// Loader reads set files.
type Loader struct {
	// LookupEnv resolves variables (os.LookupEnv in the CLI); nil means none is set.
	LookupEnv func(string) (string, bool)
	// Warn, if set, is told each warning as one line "FILE:LINE: path: message":
	// a variable used without a default that is not set (it becomes "", as in
	// docker compose), a Kubernetes object skipped, a field approximated, and,
	// when Lenient, a field of a Kubernetes manifest that ostset cannot map.
	Warn func(msg string)
	// Lenient makes the fields of a Kubernetes manifest that ostset cannot map
	// (a second container, affinity, tolerations...) warnings: by default
	// each is an error.
	Lenient bool
	// ConfigDir is where the files of the ConfigMap and Secret volumes of
	// imported StatefulSets are written (see ConfigFile), one directory per set
	// and volume.
	ConfigDir string
	// Manifests reads the documents that are another system's objects
	// rather than sets (kube.Manifests: Kubernetes objects). Nil reads
	// every document as a set.
	Manifests Manifests
}

// Load reads the set file at path and parses it; see Parse.
func (l Loader) Load(path string) ([]Set, error) {
	sets, _, err := l.LoadFiles([]string{path})
	return sets, err
}

// LoadFiles reads several set files as one: a Kubernetes StatefulSet may use
// a Service, ConfigMap or Secret of another file. It also returns the files
// the sets' ConfigMap and Secret volumes show, which must be written (see
// WriteConfigFiles) before the sets are applied. A set name may be defined
// once only across the files.
func (l Loader) LoadFiles(paths []string) ([]Set, []ConfigFile, error) {
	var files []sourceFile
	var errs []error
	for _, path := range paths {
		data, err := readSetFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, sourceFile{path, data})
	}
	if len(files) > 0 {
		sets, configs, err := l.parseFiles(files)
		if err != nil {
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return sets, configs, nil
		}
	}
	if len(errs) == 1 {
		return nil, nil, errs[0] // os.IsNotExist works on it
	}
	return nil, nil, errors.Join(errs...)
}

func readSetFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d KiB: not a set file", path, maxFileSize/1024)
	}
	return data, nil
}

// maxFileSize bounds a set file: a real one is a few KiB.
const maxFileSize = 1 << 20

type sourceFile struct {
	name string
	data []byte
}

// Parse reads every set in a set file: one YAML document per set (empty
// documents are skipped), with environment variables interpolated, defaults
// applied and everything validated. filename only labels errors
// ("set.yaml:7: ...") and Set.Source, which is the line of the document's
// first key.
//
// A document that Loader.Manifests claims (with kube.Manifests, a
// Kubernetes object) is read by it, not as a set, and not interpolated.
//
// Variables are expanded in values after YAML parsing, as docker compose
// does, so a value cannot break the YAML around it, comments are not
// expanded, and lines stay right. Keys are never expanded, nor references to
// the variables ostset sets in each replica (RuntimePrefix): those are the
// container's.
//
// The error joins every problem found, one per line, each as
// "FILE:LINE: field.path: message"; no sets are returned with it. A file
// without any set is an error.
func (l Loader) Parse(filename string, data []byte) ([]Set, error) {
	sets, _, err := l.parseFiles([]sourceFile{{filename, data}})
	return sets, err
}

func (l Loader) parseFiles(files []sourceFile) ([]Set, []ConfigFile, error) {
	var (
		sets    []Set
		errs    []error
		reading ManifestReading
		foreign = map[string]bool{} // files with documents of Manifests
	)
	if l.Manifests != nil {
		reading = l.Manifests.Read(l)
	}
	for _, f := range files {
		before := len(sets)
		fileErrs, other := l.parseSetDocuments(f, reading, func(set Set) { sets = append(sets, set) })
		errs = append(errs, fileErrs...)
		foreign[f.name] = other
		if len(fileErrs) == 0 && len(sets) == before && !other {
			errs = append(errs, fmt.Errorf("%s: no sets defined", f.name))
		}
	}
	var configs []ConfigFile
	if reading != nil {
		imported, files, after := reading.Sets()
		for _, imp := range imported {
			set, problems := finishImport(imp)
			errs = append(errs, problems...)
			if len(problems) == 0 {
				sets = append(sets, set)
			}
		}
		errs = append(errs, after...)
		configs = files
	}
	// Across documents and files: one name per set, no host port twice.
	errs = append(errs, checkSets(sets)...)
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if len(sets) == 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.name
		}
		return nil, nil, fmt.Errorf("%s: no sets defined", strings.Join(names, ", "))
	}
	return sets, configs, nil
}

// parseSetDocuments parses the set documents of a file, giving each set to
// add, and hands the documents Manifests claims to reading. It says whether
// the file has any such document.
func (l Loader) parseSetDocuments(f sourceFile, reading ManifestReading, add func(Set)) ([]error, bool) {
	lookupEnv := l.LookupEnv
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	var errs []error
	other := false
	dec := yaml.NewDecoder(bytes.NewReader(f.data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// The parser cannot resume after a syntax error.
			errs = append(errs, yamlErrors(f.name, err)...)
			break
		}
		if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
			continue
		}
		root := doc.Content[0]
		if expandedSize(root, map[*yaml.Node]int{}) > maxExpandedNodes {
			errs = append(errs, fmt.Errorf("%s:%d: the document expands to more than %d values through its aliases (an anchor bomb?)",
				f.name, root.Line, maxExpandedNodes))
			continue
		}
		if reading != nil && l.Manifests.Claims(root) {
			other = true
			errs = append(errs, reading.Add(f.name, root)...)
			continue
		}
		set, docErrs := parseDocument(f.name, root, lookupEnv, l.Warn)
		if len(docErrs) > 0 {
			errs = append(errs, docErrs...)
			continue
		}
		add(set)
	}
	return errs, other
}

// parseDocument turns one non-empty YAML document into a defaulted, valid Set.
// Its errors come in line order.
func parseDocument(filename string, root *yaml.Node, lookupEnv func(string) (string, bool), warn func(string)) (Set, []error) {
	var problems []yamlnode.Problem
	report := func(n *yaml.Node, path, msg string) {
		problems = append(problems, yamlnode.Problem{Line: n.Line, Path: path, Message: msg})
	}
	if root.Kind != yaml.MappingNode {
		report(root, "", fmt.Sprintf("expected a mapping describing a set, got %s", yamlnode.KindName(root.Kind, root.Value)))
		return Set{}, yamlnode.Errors(filename, problems)
	}
	interpolateNode(root, "", lookupEnv, report, unsetWarnings(filename, warn))
	if len(problems) > 0 {
		return Set{}, yamlnode.Errors(filename, problems)
	}
	// Carry on after shape errors: validation still has things to say about
	// the other fields, and all of it is more useful in one go.
	bad := checkSchema(root, reflect.TypeFor[Set](), "", report)
	var s Set
	if err := root.Decode(&s); err != nil && len(problems) == 0 {
		// checkSchema should have caught everything; keep yaml's word if not.
		return Set{}, yamlErrors(filename, err)
	}
	s.Source = fmt.Sprintf("%s:%d", filename, root.Line)
	lines := indexLines(root)
	s.Written = lines.written()
	s.Lines = lines.lines
	s.ApplyDefaults()
	for _, fe := range s.validate() {
		if !within(fe.Path, bad) {
			problems = append(problems, yamlnode.Problem{Line: lines.lineOf(fe.Path), Path: fe.Path, Message: fe.Message})
		}
	}
	return s, yamlnode.Errors(filename, problems)
}

// maxExpandedNodes bounds the size of a document with its aliases followed: a
// set file is small, and a few lines of nested aliases (an "anchor bomb") expand
// to billions of values that every walk over the document would visit.
const maxExpandedNodes = 100_000

// expandedSize is the number of nodes of n with aliases followed, counted once
// per node (memo) and capped just above maxExpandedNodes.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int) int {
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = maxExpandedNodes + 1 // an alias cycle counts as too large
	size := 1
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		size = expandedSize(n.Alias, memo)
	}
	for _, c := range n.Content {
		size = min(size+expandedSize(c, memo), maxExpandedNodes+1)
	}
	memo[n] = size
	return size
}

// unsetWarnings words, for warn, a variable used without a default that is
// not set, as docker compose does; once per variable and field. Nil when
// nobody listens.
func unsetWarnings(filename string, warn func(string)) func(*yaml.Node, string, string) {
	if warn == nil {
		return nil
	}
	seen := map[string]bool{}
	return func(n *yaml.Node, path, name string) {
		msg := fmt.Sprintf("%s:%d: %s: The %q variable is not set. Defaulting to a blank string.", filename, n.Line, path, name)
		if !seen[msg] {
			seen[msg] = true
			warn(msg)
		}
	}
}

// within reports whether path is one of paths or inside one of them ("" is
// the whole document).
func within(path string, paths []string) bool {
	for _, p := range paths {
		if p == "" || path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

var yamlLineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// parserMessages are the errors of yaml's parser (as opposed to its scanner).
// yaml numbers their lines from 0, and leaves "line 0" out: they are moved to
// the line numbers of everything else here, which count from 1.
var parserMessages = map[string]bool{
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected node content":     true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// yamlErrors rewrites yaml's "yaml: line 7: message" as "FILE:7: message".
func yamlErrors(filename string, err error) []error {
	msgs := []string{err.Error()}
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
		msgs = te.Errors
	}
	errs := make([]error, 0, len(msgs))
	for _, msg := range msgs {
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			if parserMessages[m[2]] {
				line++
			}
			errs = append(errs, fmt.Errorf("%s:%d: %s", filename, line, m[2]))
		} else if parserMessages[strings.TrimPrefix(msg, "yaml: ")] {
			errs = append(errs, fmt.Errorf("%s:1: %s", filename, strings.TrimPrefix(msg, "yaml: ")))
		} else {
			errs = append(errs, fmt.Errorf("%s: %s", filename, strings.TrimPrefix(msg, "yaml: ")))
		}
	}
	return errs
}

// fieldLines maps field paths ("template.ports[0].hostPort") to the line they
// are written on, so that validation, which knows nothing about YAML, can
// still point at the right line.
type fieldLines struct {
	lines map[string]int
	doc   int
}

func indexLines(root *yaml.Node) fieldLines {
	f := fieldLines{lines: map[string]int{}, doc: root.Line}
	f.add(root, "", 0)
	return f
}

func (f fieldLines) add(n *yaml.Node, path string, depth int) {
	if depth > 100 { // aliases can nest; give up rather than loop
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		f.add(n.Alias, path, depth+1)
	case yaml.MappingNode:
		f.addPairs(n, path, depth)
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if _, ok := f.lines[p]; !ok {
				f.lines[p] = c.Line
			}
			f.add(c, p, depth+1)
		}
	}
}

// addPairs indexes the keys of mapping n. Keys written in the mapping win
// over merged ones ("<<: *base"), as they do in YAML, so merges go last and
// only add keys not yet seen.
func (f fieldLines) addPairs(n *yaml.Node, path string, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		p := yamlnode.Join(path, k.Value)
		if _, seen := f.lines[p]; !seen {
			f.lines[p] = k.Line
			f.add(v, p, depth+1)
		}
	}
	for _, m := range merges {
		if m.Kind == yaml.SequenceNode {
			for _, c := range m.Content {
				f.add(c, path, depth+1)
			}
		} else {
			f.add(m, path, depth+1)
		}
	}
}

// written returns the set of field paths written in the document.
func (f fieldLines) written() map[string]bool {
	w := make(map[string]bool, len(f.lines))
	for p := range f.lines {
		w[p] = true
	}
	return w
}

// lineOf returns the line of path, or of its closest written ancestor when the
// field itself is missing (a required field), or the document's line.
func (f fieldLines) lineOf(path string) int {
	if l, ok := yamlnode.LineOf(f.lines, path); ok {
		return l
	}
	return f.doc
}
