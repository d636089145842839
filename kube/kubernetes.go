// Package kube translates between Kubernetes manifests and the set model of
// package config: it imports apps/v1 StatefulSets (with their headless
// Service, ConfigMaps and Secrets) as sets, through config.Loader's
// Manifests, and exports a set as a StatefulSet and its Service. It never
// imports the engine, the daemon or the Docker SDK: it is a translation
// between two file formats.
package kube

import (
	"encoding/base64"
	"fmt"
	"github.com/ostset/ostset/kube/kubenames"
	"maps"
	"math/big"
	"net"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
	"github.com/ostset/ostset/internal/yamlnode"
	"github.com/ostset/ostset/kube/kubeprobe"
	"github.com/ostset/ostset/kube/roundtrip"
)

// Kubernetes manifests. A set file may hold apps/v1 StatefulSet documents
// beside set documents; each becomes a Set, which is then defaulted,
// validated, hashed and applied like any other. The manifest is read from
// YAML nodes into the set model directly: the Kubernetes API types are not
// linked. Every field is either mapped, or reported with its file:line and
// path: an error, or a warning when the loader is lenient.

// kubeDoc is one Kubernetes object read from a file, before mapping.
type kubeDoc struct {
	file       string
	root       *yaml.Node
	apiVersion string
	kind       string
	name       string
	namespace  string
	used       bool // a StatefulSet refers to it
}

// isKubernetes reports whether a document is a Kubernetes object (it says
// its apiVersion or kind) rather than a set.
func isKubernetes(root *yaml.Node) bool {
	if root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i].Value; k == "apiVersion" || k == "kind" {
			return true
		}
	}
	return false
}

// readKubeDoc reads the identity of an object; problems go to report.
func readKubeDoc(file string, root *yaml.Node) (*kubeDoc, []yamlnode.Problem) {
	d := &kubeDoc{file: file, root: root}
	var problems []yamlnode.Problem
	str := func(n *yaml.Node, path string) string {
		if n == nil {
			return ""
		}
		if n.Kind != yaml.ScalarNode {
			problems = append(problems, yamlnode.Problem{Line: n.Line, Path: path, Message: "expected a string"})
			return ""
		}
		return n.Value
	}
	d.apiVersion = str(mapValue(root, "apiVersion"), "apiVersion")
	d.kind = str(mapValue(root, "kind"), "kind")
	if d.kind == "" && len(problems) == 0 {
		problems = append(problems, yamlnode.Problem{Line: root.Line, Path: "kind", Message: "a Kubernetes object needs a kind"})
	}
	if md := mapValue(root, "metadata"); md != nil {
		if md.Kind != yaml.MappingNode {
			problems = append(problems, yamlnode.Problem{Line: md.Line, Path: "metadata", Message: "expected a mapping"})
		} else {
			d.name = str(mapValue(md, "name"), "metadata.name")
			d.namespace = str(mapValue(md, "namespace"), "metadata.namespace")
		}
	}
	return d, problems
}

// mapValue returns the value of key in mapping n (aliases followed), or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			for v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// kubeImport maps the StatefulSets of a file set, with the Services,
// ConfigMaps and Secrets beside them.
type kubeImport struct {
	docs      []*kubeDoc
	configDir string
	// bare: map what the manifests say, without laying an export's
	// annotation over it (see manifestDigests).
	bare  bool
	errs  []yamlnode.FileProblem // not mappable: errors, or warnings when lenient
	bad   []yamlnode.FileProblem // invalid: errors
	notes []yamlnode.FileProblem // always warnings: what was skipped or approximated
	// carried: what only a cluster does (carry.go): notes, errors when strict
	carried []yamlnode.FileProblem
	kept    []config.KubernetesCarried // of the StatefulSet being mapped: what an export writes back
	objects []*yaml.Node               // of the StatefulSet being mapped: the other objects kept
	files   []config.ConfigFile
}

// importedSet is a StatefulSet mapped to a set, before defaults.
type importedSet struct {
	config.Imported
	bad bool // the manifest is invalid: no set
}

// find returns the object of kind named name (first namespace match wins).
func (k *kubeImport) find(kind, name, namespace string) *kubeDoc {
	for _, d := range k.docs {
		if d.kind == kind && d.name == name && d.namespace == namespace {
			return d
		}
	}
	return nil
}

// run maps every StatefulSet, and notes every other object it skips.
func (k *kubeImport) run() []importedSet {
	var out []importedSet
	for _, d := range k.docs {
		if d.kind == "StatefulSet" {
			out = append(out, k.statefulSet(d))
		}
	}
	for _, d := range k.docs {
		if d.kind == "StatefulSet" || d.used {
			continue
		}
		what := fmt.Sprintf("%s %q", d.kind, d.name)
		why := "ostset runs StatefulSets only"
		list := &k.notes
		switch d.kind {
		case "Service":
			why = "it selects the pods of no StatefulSet of these files (a Service that does is a DNS name of their replicas)"
			list = &k.carried
		case "ConfigMap", "Secret":
			why = "no StatefulSet in these files uses it"
		case "PodDisruptionBudget":
			why = "ostset evicts nothing: only a cluster drains nodes"
			list = &k.carried
		}
		*list = append(*list, fileProblemAt(d.file, d.root.Line, "", "skipped "+what+": "+why))
	}
	return out
}

// node is a mapping of the manifest being read: the keys it reads are
// marked, and rest reports the others.
type node struct {
	k    *kubeImport
	file string
	n    *yaml.Node
	path string
	seen map[string]bool
}

func (k *kubeImport) node(file string, n *yaml.Node, path string) *node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil
	}
	m := &node{k: k, file: file, n: n, path: path, seen: map[string]bool{}}
	if n.Kind != yaml.MappingNode {
		k.invalid(file, n, path, "expected a mapping, got "+yamlnode.KindName(n.Kind, n.Value))
		return nil
	}
	return m
}

func (k *kubeImport) fail(file string, n *yaml.Node, path, msg string) {
	k.errs = append(k.errs, fileProblemAt(file, n.Line, path, msg))
}

func (k *kubeImport) invalid(file string, n *yaml.Node, path, msg string) {
	k.bad = append(k.bad, fileProblemAt(file, n.Line, path, msg))
}

func (k *kubeImport) note(file string, n *yaml.Node, path, msg string) {
	k.notes = append(k.notes, fileProblemAt(file, n.Line, path, msg))
}

func (m *node) at(key string) string { return yamlnode.Join(m.path, key) }

// key returns the line of key, or of the mapping.
func (m *node) line(key string) int {
	if m == nil {
		return 0
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		if m.n.Content[i].Value == key {
			return m.n.Content[i].Line
		}
	}
	return m.n.Line
}

// get marks key read and returns its value, nil when absent or null.
func (m *node) get(key string) *yaml.Node {
	if m == nil {
		return nil
	}
	m.seen[key] = true
	v := mapValue(m.n, key)
	if v != nil && v.ShortTag() == "!!null" {
		return nil
	}
	return v
}

func (m *node) child(key string) *node {
	v := m.get(key)
	if v == nil {
		return nil
	}
	return m.k.node(m.file, v, m.at(key))
}

func (m *node) str(key string) string {
	v := m.get(key)
	if v == nil {
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		m.k.invalid(m.file, v, m.at(key), "expected a string, got "+yamlnode.KindName(v.Kind, v.Value))
		return ""
	}
	return v.Value
}

// integer reads key as a whole number; ok is false when absent or wrong.
func (m *node) integer(key string) (int, bool) {
	v := m.get(key)
	if v == nil {
		return 0, false
	}
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil {
		m.k.invalid(m.file, v, m.at(key), "expected a whole number, got "+yamlnode.KindName(v.Kind, v.Value))
		return 0, false
	}
	return n, true
}

// mode reads a file mode: 0400 is octal, as YAML 1.1 (which kubectl reads)
// and Kubernetes' examples have it, 256 decimal.
func (m *node) mode(key string) (uint32, bool) {
	v := m.get(key)
	if v == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(v.Value, 0, 32)
	if v.Kind != yaml.ScalarNode || err != nil || n > 0o777 {
		m.k.invalid(m.file, v, m.at(key), "expected a file mode from 0 to 0777, got "+yamlnode.KindName(v.Kind, v.Value))
		return 0, false
	}
	return uint32(n), true
}

func (m *node) boolean(key string) bool {
	v := m.get(key)
	if v == nil {
		return false
	}
	b, err := strconv.ParseBool(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil {
		m.k.invalid(m.file, v, m.at(key), "expected true or false, got "+yamlnode.KindName(v.Kind, v.Value))
	}
	return b
}

// list returns the items of key, each a mapping.
func (m *node) list(key string) []*node {
	v := m.get(key)
	if v == nil {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		m.k.invalid(m.file, v, m.at(key), "expected a list, got "+yamlnode.KindName(v.Kind, v.Value))
		return nil
	}
	var out []*node
	for i, c := range v.Content {
		if item := m.k.node(m.file, c, fmt.Sprintf("%s[%d]", m.at(key), i)); item != nil {
			out = append(out, item)
		}
	}
	return out
}

func (m *node) strings(key string) []string {
	v := m.get(key)
	if v == nil {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		m.k.invalid(m.file, v, m.at(key), "expected a list of strings, got "+yamlnode.KindName(v.Kind, v.Value))
		return nil
	}
	out := []string{}
	for i, c := range v.Content {
		if c.Kind != yaml.ScalarNode {
			m.k.invalid(m.file, c, fmt.Sprintf("%s[%d]", m.at(key), i), "expected a string, got "+yamlnode.KindName(c.Kind, c.Value))
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

func (m *node) stringMap(key string) map[string]string {
	c := m.child(key)
	if c == nil {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(c.n.Content); i += 2 {
		k := c.n.Content[i].Value
		out[k] = c.str(k)
	}
	return out
}

// unsupported reports key, if present, as not mappable.
func (m *node) unsupported(key, why string) {
	if m == nil {
		return
	}
	if v := m.get(key); v != nil {
		m.k.fail(m.file, m.keyNode(key), m.at(key), why)
	}
}

func (m *node) keyNode(key string) *yaml.Node {
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		if m.n.Content[i].Value == key {
			return m.n.Content[i]
		}
	}
	return m.n
}

// rest reports every key not read: nothing is dropped silently.
func (m *node) rest() {
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.n.Content); i += 2 {
		k := m.n.Content[i]
		if m.seen[k.Value] {
			continue
		}
		if mapValue(m.n, k.Value).ShortTag() == "!!null" {
			continue // "affinity:" with nothing says nothing
		}
		m.k.fail(m.file, k, m.at(k.Value), "not supported by ostset")
	}
}

// mapper maps one StatefulSet.
type mapper struct {
	k     *kubeImport
	file  string
	set   config.Set
	lines map[string]int // set-file path -> manifest line
	ns    string
	names config.KubernetesNames // what a cluster uses and ostset does not: kept for export
	// claims by name, and the volumes of the pod by name.
	claims  map[string]*config.VolumeClaimTemplate
	volumes map[string]*podVolume
	fsGroup *int // the pod's: the group of its ConfigMap and Secret files
	// podLabels are the pod template's, as written: the Services that select them are DNS names
	podLabels map[string]string
}

// podVolume is one entry of the pod's volumes.
type podVolume struct {
	name    string
	line    int
	path    string
	tmpfs   string // emptyDir: the tmpfs entry, without its target
	source  string // ConfigMap or Secret: the directory of its files (engine/state.Store.ConfigVolume)
	kind    string // ConfigMap or Secret, and its name: what an export writes
	object  string
	missing bool // a ConfigMap or Secret not in the files (reported)
	used    bool
}

func (p *mapper) mark(setPath string, line int) {
	if _, ok := p.lines[setPath]; !ok {
		p.lines[setPath] = line
	}
}

func (k *kubeImport) statefulSet(d *kubeDoc) importedSet {
	badBefore := len(k.bad)
	k.kept, k.objects = nil, nil
	p := &mapper{k: k, file: d.file, lines: map[string]int{}, ns: d.namespace,
		claims: map[string]*config.VolumeClaimTemplate{}, volumes: map[string]*podVolume{}}
	root := k.node(d.file, d.root, "")
	if d.apiVersion != "apps/v1" {
		k.fail(d.file, d.root, "apiVersion", fmt.Sprintf("%q: a StatefulSet must be apps/v1", d.apiVersion))
	}
	root.get("apiVersion")
	root.get("kind")
	root.get("status") // what a cluster reports, not what is asked
	md := root.child("metadata")
	p.set.Name = md.str("name")
	p.mark("name", md.line("name"))
	md.str("namespace")
	p.names.Namespace = d.namespace
	p.names.Labels = md.stringMap("labels") // the object's own labels: nothing runs with them, an export keeps them
	annotations := md.stringMap("annotations")
	for _, f := range []string{"creationTimestamp", "generation", "resourceVersion", "uid", "managedFields", "selfLink"} {
		md.get(f) // written by a cluster (kubectl get -o yaml)
	}
	md.rest()

	spec := root.child("spec")
	if spec == nil {
		k.invalid(d.file, d.root, "spec", "a StatefulSet needs a spec")
	}
	if n, ok := spec.integer("replicas"); ok {
		p.set.Replicas = ptr(n)
		p.mark("replicas", spec.line("replicas"))
	}
	p.set.ServiceName = spec.str("serviceName")
	p.mark("serviceName", spec.line("serviceName"))
	if svc := k.find("Service", p.set.ServiceName, d.namespace); svc != nil && p.set.ServiceName != "" {
		p.names.Service = k.service(svc)
	}
	p.set.PodManagementPolicy = spec.str("podManagementPolicy")
	p.mark("podManagementPolicy", spec.line("podManagementPolicy"))
	if n, ok := spec.integer("minReadySeconds"); ok {
		p.set.MinReadySeconds = n
		p.mark("minReadySeconds", spec.line("minReadySeconds"))
	}
	if n, ok := spec.integer("revisionHistoryLimit"); ok {
		p.set.RevisionHistoryLimit = ptr(n)
		p.mark("revisionHistoryLimit", spec.line("revisionHistoryLimit"))
	}
	if o := spec.child("ordinals"); o != nil {
		p.set.Ordinals.Start, _ = o.integer("start")
		p.mark("ordinals.start", o.line("start"))
		o.rest()
	}
	if r := spec.child("persistentVolumeClaimRetentionPolicy"); r != nil {
		p.set.PersistentVolumeClaimRetentionPolicy.WhenDeleted = r.str("whenDeleted")
		p.set.PersistentVolumeClaimRetentionPolicy.WhenScaled = r.str("whenScaled")
		p.mark("persistentVolumeClaimRetentionPolicy.whenDeleted", r.line("whenDeleted"))
		p.mark("persistentVolumeClaimRetentionPolicy.whenScaled", r.line("whenScaled"))
		r.rest()
	}
	p.updateStrategy(spec.child("updateStrategy"))
	if sel := spec.child("selector"); sel != nil {
		// A StatefulSet's pods are its own: ostset selects them by its own
		// labels, and an export keeps the selector, which cannot change.
		p.names.Selector = sel.stringMap("matchLabels")
		sel.rest()
	}
	for _, c := range spec.list("volumeClaimTemplates") {
		p.claim(c)
	}
	p.podTemplate(spec.child("template"))
	p.names.Services = k.selectingServices(p, p.podLabels)
	k.disruptionBudgets(p)
	p.names.Carried, p.names.Written = k.kept, k.written(d, p.names.Service != nil)
	spec.rest()
	root.rest()

	out := importedSet{Imported: config.Imported{Set: p.set, File: d.file, Lines: p.lines, Doc: d.root.Line}}
	for a, v := range annotations {
		if a != ExportAnnotation && a != DigestAnnotation {
			if p.names.Annotations == nil {
				p.names.Annotations = map[string]string{}
			}
			p.names.Annotations[a] = v
		}
	}
	if k.bare {
		return out
	}
	p.checkEdits(md, out, annotations)
	if err := OverlayExport(&out.Set, annotations); err != nil {
		// One line: yaml lists its type errors on lines of their own.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
		k.invalid(d.file, md.keyNode("annotations"), "", msg)
	}
	out.bad = len(k.bad) > badBefore
	if !sameAsDefault(&p.names, out.Set) {
		out.Set.Kubernetes = &p.names
	}
	return out
}

// checkEdits reports each field that the export annotation replaces and
// whose manifest text was edited since the export wrote it (see
// DigestAnnotation): the annotation's value is used, and the edit is not.
func (p *mapper) checkEdits(md *node, imp importedSet, annotations map[string]string) {
	_, recorded, err := roundtrip.Split(annotations)
	if err != nil || recorded == nil {
		return // a bad annotation is reported by OverlayExport
	}
	edited, err := roundtrip.Edited(imp.Set, recorded)
	if err != nil {
		p.k.invalid(p.file, md.keyNode("annotations"), "", err.Error())
		return
	}
	for _, path := range edited {
		p.k.notes = append(p.k.notes, fileProblemAt(p.file, imp.lineOf(path), path,
			fmt.Sprintf("changed since ostset export wrote it, but the annotation %s replaces this field: the edit is not applied; remove %s from the annotation (and its digest) to apply it",
				ExportAnnotation, path)))
	}
}

// service reads the headless Service that gives a StatefulSet its DNS
// domain: the replicas are <name>-<ordinal>.<serviceName>, which ostset
// makes its DNS aliases. Its labels, selector and ports say nothing more to
// ostset; they are kept for an export. Nil when it is not headless.
func (k *kubeImport) service(d *kubeDoc) *config.KubernetesService {
	spec := mapValue(d.root, "spec")
	if ip := mapValue(spec, "clusterIP"); ip == nil || ip.Value != "None" {
		return nil // not headless: skipped with a note
	}
	d.used = true
	svc := &config.KubernetesService{Labels: scalarMap(mapValue(mapValue(d.root, "metadata"), "labels")), Selector: scalarMap(mapValue(spec, "selector"))}
	if ports := mapValue(spec, "ports"); ports != nil && ports.Kind == yaml.SequenceNode {
		for _, p := range ports.Content {
			n, _ := strconv.Atoi(mapValueString(p, "port"))
			svc.Ports = append(svc.Ports, config.KubernetesServicePort{Name: mapValueString(p, "name"), Port: n,
				TargetPort: mapValueString(p, "targetPort"), Protocol: mapValueString(p, "protocol")})
		}
	}
	return svc
}

// scalarMap reads a mapping of strings (labels, a selector); nil if n is not one.
func scalarMap(n *yaml.Node) map[string]string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
			out[n.Content[i].Value] = v.Value
		}
	}
	return out
}

func (p *mapper) updateStrategy(u *node) {
	if u == nil {
		return
	}
	p.set.UpdateStrategy.Type = u.str("type")
	p.mark("updateStrategy.type", u.line("type"))
	if ru := u.child("rollingUpdate"); ru != nil {
		if n, ok := ru.integer("partition"); ok {
			p.set.UpdateStrategy.RollingUpdate.Partition = n
			p.mark("updateStrategy.rollingUpdate.partition", ru.line("partition"))
		}
		if v := ru.get("maxUnavailable"); v != nil {
			p.set.UpdateStrategy.RollingUpdate.MaxUnavailable = config.IntOrPercent(v.Value)
			p.mark("updateStrategy.rollingUpdate.maxUnavailable", ru.line("maxUnavailable"))
		}
		ru.rest()
	}
	u.rest()
}

// claim maps a volume claim template to a per-ordinal volume; its mount
// path comes from the containers' volumeMounts.
func (p *mapper) claim(c *node) {
	i := len(p.set.VolumeClaimTemplates)
	md := c.child("metadata")
	name := md.str("name")
	kept := config.KubernetesClaim{Name: name, Labels: md.stringMap("labels"), Annotations: md.stringMap("annotations")}
	md.rest()
	// A claim starts empty: Docker must not copy the image's files in.
	p.set.VolumeClaimTemplates = append(p.set.VolumeClaimTemplates, config.VolumeClaimTemplate{Name: name, NoCopy: true})
	p.mark(fmt.Sprintf("volumeClaimTemplates[%d].name", i), md.line("name"))
	p.mark(fmt.Sprintf("volumeClaimTemplates[%d]", i), c.n.Line)
	if spec := c.child("spec"); spec != nil {
		// What a cluster makes of the claim is kept for an export: a
		// StatefulSet's claims cannot change.
		if modes := spec.strings("accessModes"); len(modes) > 0 && !slices.Equal(modes, []string{"ReadWriteOnce"}) {
			p.k.note(p.file, spec.keyNode("accessModes"), spec.at("accessModes"), fmt.Sprintf("%v: a Docker volume is used by one replica, as ReadWriteOnce", modes))
			kept.AccessModes = modes
		}
		if class := spec.get("storageClassName"); class != nil {
			kept.StorageClassName = ptr(spec.str("storageClassName"))
			p.k.note(p.file, spec.keyNode("storageClassName"), spec.at("storageClassName"), fmt.Sprintf("%q: the volume uses Docker's local driver", class.Value))
		}
		if r := spec.child("resources"); r != nil {
			requests := r.stringMap("requests")
			for _, k := range slices.Sorted(maps.Keys(requests)) {
				p.k.note(p.file, r.keyNode("requests"), r.at("requests."+k), fmt.Sprintf("%s: a Docker volume has no size", requests[k]))
			}
			kept.Storage = requests["storage"]
			r.rest()
		}
		spec.str("volumeMode")
		if m := spec.get("volumeMode"); m != nil && m.Value != "Filesystem" {
			p.k.fail(p.file, m, spec.at("volumeMode"), fmt.Sprintf("%q: a Docker volume is a file system", m.Value))
		}
		spec.rest()
	}
	c.get("apiVersion")
	c.get("kind")
	c.rest()
	// The request is kept even when it is the default: an export with
	// another --storage would change the claim. A set that keeps nothing
	// else drops it (sameAsDefault).
	if !claimIsDefault(kept) || kept.Storage != "" {
		p.names.Claims = append(p.names.Claims, kept)
	}
}

// podTemplate maps the pod: its first container is the replica container.
func (p *mapper) podTemplate(t *node) {
	if t == nil {
		return
	}
	md := t.child("metadata")
	labels := md.stringMap("labels")
	p.podLabels = labels
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if k == NameLabel && labels[k] == p.set.Name && p.names.Selector[k] == labels[k] {
			continue // the selector an export writes: ostset labels its containers itself
		}
		if p.set.Template.Labels == nil {
			p.set.Template.Labels = map[string]string{}
		}
		p.set.Template.Labels[k] = escapeTemplate(labels[k])
		p.mark("template.labels."+k, md.line("labels"))
	}
	for k := range md.stringMap("annotations") {
		if k != RestartedAtAnnotation {
			md.k.fail(p.file, md.keyNode("annotations"), md.at("annotations."+k), "a pod annotation has no meaning to ostset")
		}
	}
	md.rest()
	spec := t.child("spec")
	t.rest()
	if spec == nil {
		p.k.invalid(p.file, t.n, t.at("spec"), "a pod template needs a spec")
		return
	}
	if n, ok := spec.integer("terminationGracePeriodSeconds"); ok {
		p.set.TerminationGracePeriodSeconds = ptr(n)
		p.mark("terminationGracePeriodSeconds", spec.line("terminationGracePeriodSeconds"))
	}
	if rp := spec.get("restartPolicy"); rp != nil && rp.Value != "Always" {
		p.k.fail(p.file, rp, spec.at("restartPolicy"), fmt.Sprintf("%q: a StatefulSet's pods always restart", rp.Value))
	}
	for _, f := range schedulingFields {
		if f == "affinity" {
			spec.carryEach(f, clusterOnly)
			continue
		}
		spec.carry(f, clusterOnly)
	}
	podUser := p.podSecurity(spec.child("securityContext"))
	for _, v := range spec.list("volumes") {
		p.volume(v)
	}
	containers := spec.list("containers")
	if len(containers) == 0 {
		p.k.invalid(p.file, spec.n, spec.at("containers"), "a pod needs a container")
	}
	for i, c := range containers {
		if i == 0 {
			p.mainContainer(c, podUser)
			p.names.PodUser = podUser != "" && p.set.Template.User == podUser
			continue
		}
		p.k.fail(p.file, c.n, c.path, fmt.Sprintf("container %q: ostset runs one container per replica (the first); a sidecar is not supported", mapValueString(c.n, "name")))
	}
	for i, c := range spec.list("initContainers") {
		p.initContainer(i, c, podUser)
	}
	for _, name := range slices.Sorted(maps.Keys(p.volumes)) {
		v := p.volumes[name]
		if !v.used {
			p.k.note(p.file, &yaml.Node{Line: v.line}, v.path, fmt.Sprintf("volume %q is not mounted by the replica container", name))
		}
	}
	spec.rest()
}

// podSecurity reads the pod's securityContext: runAsUser/runAsGroup are the
// containers' default, and fsGroup gives the claims' root directories to
// that group, which ostset does with the claims' owner.
func (p *mapper) podSecurity(sc *node) string {
	if sc == nil {
		return ""
	}
	user := p.user(sc)
	if g, ok := sc.integer("fsGroup"); ok {
		p.fsGroup = &g
		uid := "0"
		if u, _, _ := strings.Cut(user, ":"); u != "" {
			uid = u
		}
		for i := range p.set.VolumeClaimTemplates {
			p.set.VolumeClaimTemplates[i].Owner = fmt.Sprintf("%s:%d", uid, g)
			p.mark(fmt.Sprintf("volumeClaimTemplates[%d].owner", i), sc.line("fsGroup"))
		}
		p.k.note(p.file, sc.keyNode("fsGroup"), sc.at("fsGroup"), fmt.Sprintf("a new volume's root directory is given to %s:%d (ownership, not a set-group-ID group)", uid, g))
	}
	sc.rest()
	return user
}

// user reads runAsUser and runAsGroup as "UID[:GID]".
func (p *mapper) user(sc *node) string {
	u, hasU := sc.integer("runAsUser")
	g, hasG := sc.integer("runAsGroup")
	switch {
	case hasU && hasG:
		return fmt.Sprintf("%d:%d", u, g)
	case hasU:
		return strconv.Itoa(u)
	case hasG:
		p.k.fail(p.file, sc.keyNode("runAsGroup"), sc.at("runAsGroup"), "Docker takes a group with a user: set runAsUser too")
	}
	return ""
}

// volume reads one of the pod's volumes: emptyDir becomes a tmpfs, a
// ConfigMap or Secret of these files is written, and copied into each replica.
func (p *mapper) volume(v *node) {
	name := v.str("name")
	pv := &podVolume{name: name, line: v.n.Line, path: v.path}
	if err := kubenames.CheckDNSLabel(name); err != nil {
		// The name becomes a directory of the state directory.
		p.k.invalid(p.file, v.n, v.at("name"), err.Error())
		pv.missing = true
	} else if prev := p.volumes[name]; prev != nil {
		p.k.invalid(p.file, v.n, v.at("name"), fmt.Sprintf("%q: a second volume of that name (the first is at line %d)", name, prev.line))
		return
	}
	switch {
	case pv.missing:
		for _, k := range []string{"emptyDir", "configMap", "secret"} {
			v.get(k) // the name is what is wrong
		}
	case v.get("emptyDir") != nil:
		e := v.child("emptyDir")
		if medium := e.str("medium"); medium != "Memory" {
			p.k.note(p.file, e.n, e.path, "an emptyDir on disk is a tmpfs (memory): it counts against the memory limit and is emptied when the container restarts")
		}
		if size := e.str("sizeLimit"); size != "" {
			if n, err := kubeQuantity(size); err == nil {
				pv.tmpfs = "size=" + strconv.FormatInt(n, 10)
			} else {
				p.k.fail(p.file, e.keyNode("sizeLimit"), e.at("sizeLimit"), err.Error())
			}
		}
		e.rest()
	case v.get("configMap") != nil:
		p.configVolume(pv, v.child("configMap"), "ConfigMap")
	case v.get("secret") != nil:
		p.configVolume(pv, v.child("secret"), "Secret")
	case len(v.n.Content) > 2:
		// hostPath, persistentVolumeClaim, projected...
		kind := v.n.Content[2].Value
		if kind == "name" && len(v.n.Content) > 4 {
			kind = v.n.Content[4].Value
		}
		p.k.fail(p.file, v.n, v.path, fmt.Sprintf("volume %q: a %s volume is not supported (emptyDir, configMap, secret and volumeClaimTemplates are)", name, kind))
		pv.missing = true
		p.volumes[name] = pv
		return
	}
	v.rest()
	p.volumes[name] = pv
}

// configVolume resolves a ConfigMap or Secret volume to files.
func (p *mapper) configVolume(pv *podVolume, src *node, kind string) {
	nameKey := "name"
	if kind == "Secret" {
		nameKey = "secretName"
	}
	obj := src.str(nameKey)
	if err := kubenames.CheckDNSSubdomain(obj); err != nil {
		p.k.invalid(p.file, src.n, src.at(nameKey), err.Error())
	}
	mode := uint32(0o644)
	if m, ok := src.mode("defaultMode"); ok {
		mode = m
	}
	optional := src.boolean("optional")
	items := src.list("items")
	d := p.k.find(kind, obj, p.ns)
	src.rest()
	pv.missing, pv.kind, pv.object = d == nil, kind, obj
	if d == nil {
		if !optional {
			p.k.fail(p.file, src.n, src.path, fmt.Sprintf("%s %q is not in these files", kind, obj))
		}
		return
	}
	d.used = true
	p.k.keepConfigMap(d)
	data, err := objectData(d)
	if err != nil {
		p.k.invalid(d.file, d.root, "data", err.Error())
		pv.missing = true
		return
	}
	pv.source = filepath.Join(p.k.configDir, p.set.Name, pv.name)
	write := func(name string, b []byte, mode uint32) {
		f := config.ConfigFile{Dir: pv.source, Name: name, Data: b, Mode: mode}
		if p.fsGroup != nil {
			// As the kubelet does: the pod's group owns the files and may read them.
			f.GID, f.Mode = *p.fsGroup, mode|0o440
		}
		p.k.files = append(p.k.files, f)
	}
	var written []string
	if items == nil {
		for _, key := range slices.Sorted(maps.Keys(data)) {
			write(key, data[key], mode)
		}
		return
	}
	for _, it := range items {
		key, to := it.str("key"), it.str("path")
		m := mode
		if n, ok := it.mode("mode"); ok {
			m = n
		}
		it.rest()
		b, ok := data[key]
		if !ok {
			p.k.fail(p.file, it.n, it.path, fmt.Sprintf("%s %q has no key %q", kind, obj, key))
			continue
		}
		if err := kubenames.CheckItemPath(to); err != nil {
			p.k.invalid(p.file, it.n, it.at("path"), err.Error())
			continue
		}
		clean := path.Clean(to)
		if slices.Contains(written, clean) {
			p.k.invalid(p.file, it.n, it.at("path"), fmt.Sprintf("%q: a second item with that path", to))
			continue
		}
		written = append(written, clean)
		write(clean, b, m)
	}
}

// objectData is a ConfigMap's data and binaryData, or a Secret's data
// (base64) and stringData.
func objectData(d *kubeDoc) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, f := range []string{"data", "binaryData", "stringData"} {
		m := mapValue(d.root, f)
		if m == nil || m.ShortTag() == "!!null" {
			continue
		}
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: expected a mapping", f)
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i].Value, m.Content[i+1].Value
			if err := kubenames.CheckConfigKey(k); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if (d.kind == "Secret" && f == "data") || f == "binaryData" {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					return nil, fmt.Errorf("%s.%s: not base64", f, k)
				}
				out[k] = b
			} else {
				out[k] = []byte(v)
			}
		}
	}
	return out, nil
}

// kubePullPolicy is Kubernetes' pull policy as ostset writes it: when the
// manifest says none, Always for an image without a tag or tagged latest,
// else IfNotPresent, which ostset's default ("") is.
func kubePullPolicy(image, policy string) string {
	if policy == "" {
		ref := image
		if i := strings.LastIndex(ref, "@"); i >= 0 {
			return ""
		}
		tag := ""
		if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
			tag = ref[i+1:]
		}
		if tag == "" || tag == "latest" {
			return config.PullAlways
		}
	}
	if policy == config.PullIfNotPresent {
		return ""
	}
	return policy
}

// containerFields are what the main and the init containers map alike.
type containerFields struct {
	Image, ImagePullPolicy, WorkingDir, User string
	Command, Args                            []string
	Env                                      map[string]string
	EnvRefs                                  map[string]envref.Ref
	Resources                                config.Resources
	setPath                                  string
	secretVars                               map[string]bool // the variables EnvRefs has from a Secret
}

// container maps what every container has. env values and command and
// args are expanded as Kubernetes does: $(VAR) for a variable defined
// before (in env), $$ for $, unknown references left as written.
func (p *mapper) container(c *node, setPath, podUser string) containerFields {
	f := containerFields{setPath: setPath}
	c.str("name")
	f.Image = c.str("image")
	p.mark(setPath+".image", c.line("image"))
	f.ImagePullPolicy = kubePullPolicy(f.Image, c.str("imagePullPolicy"))
	p.mark(setPath+".imagePullPolicy", c.line("imagePullPolicy"))
	f.WorkingDir = escapeTemplate(c.str("workingDir"))
	p.mark(setPath+".workingDir", c.line("workingDir"))
	defined := p.env(c, &f)
	for _, field := range []string{"command", "args"} {
		items := c.strings(field)
		for i := range items {
			p.secretUse(c.get(field), fmt.Sprintf("%s[%d]", c.at(field), i), items[i], f.secretVars)
			items[i] = expandKubeRefs(items[i], defined)
		}
		if field == "command" {
			f.Command = items
		} else {
			f.Args = items
		}
		p.mark(setPath+"."+field, c.line(field))
	}
	f.User = podUser
	if sc := c.child("securityContext"); sc != nil {
		if u := p.user(sc); u != "" {
			f.User = u
		}
		p.mark(setPath+".user", c.line("securityContext"))
		if caps := sc.child("capabilities"); caps != nil {
			if setPath != "template" {
				caps.seen = nil
			} else {
				p.set.Template.CapAdd = caps.strings("add")
				p.set.Template.CapDrop = caps.strings("drop")
				p.mark("template.capAdd", caps.line("add"))
				p.mark("template.capDrop", caps.line("drop"))
			}
			caps.rest()
		}
		sc.rest()
	}
	if r := c.child("resources"); r != nil {
		f.Resources = p.quantities(r.child("limits"), setPath+".resources")
		if setPath == "template" {
			f.Resources.Reservations = p.requests(r.child("requests"), setPath+".resources.reservations")
		} else {
			r.carry("requests", "a cluster schedules by it; ostset reserves for the replica container only")
		}
		r.rest()
	}
	return f
}

// env reads the variables in order, each expanded with those before it, and
// returns every definition for command and args.
func (p *mapper) env(c *node, f *containerFields) map[string]string {
	defined := map[string]string{}
	runtime := map[string]string{EnvSet: "{{.Set}}", EnvOrdinal: "{{.Ordinal}}", EnvName: "{{.Name}}", EnvService: "{{.Service}}"}
	for _, e := range c.list("env") {
		name := e.str("name")
		var value string
		var ref *envref.Ref
		if vf := e.child("valueFrom"); vf != nil {
			v, r, ok := p.valueFrom(vf)
			if !ok {
				e.seen["value"] = true
				continue
			}
			value, ref = v, r
		} else {
			p.secretUse(e.get("value"), e.at("value"), e.str("value"), f.secretVars)
			value = expandKubeRefs(e.str("value"), defined)
		}
		e.rest()
		if ref != nil {
			p.envRef(f, name, *ref, value, e.n.Line, defined)
			continue
		}
		delete(f.EnvRefs, name)
		delete(f.secretVars, name)
		if want, isRuntime := runtime[name]; isRuntime && p.runtimeVar(name, value) {
			defined[name] = want // ostset sets it in every replica
			continue
		}
		if f.Env == nil {
			f.Env = map[string]string{}
		}
		f.Env[name] = value
		defined[name] = value
		p.mark(f.setPath+".env."+name, e.n.Line)
	}
	return defined
}

// runtimeVar reports whether the manifest defines one of the variables ostset
// sets in each replica as ostset does (as an export writes it).
func (p *mapper) runtimeVar(name, value string) bool {
	switch name {
	case EnvSet:
		return value == p.set.Name
	case EnvService:
		return value == p.set.ServiceName
	case EnvOrdinal:
		return value == "{{.Ordinal}}"
	case EnvName:
		return value == "{{.Name}}"
	}
	return false
}

// valueFrom maps the pod fields that a replica has: its name, its ordinal
// (the pod-index label) and its namespace, and keys of the ConfigMaps and
// Secrets in these files, which stay references (ref, with the key's value,
// not escaped, as the value).
func (p *mapper) valueFrom(vf *node) (string, *envref.Ref, bool) {
	if fr := vf.child("fieldRef"); fr != nil {
		fr.str("apiVersion")
		field := fr.str("fieldPath")
		fr.rest()
		vf.rest()
		switch field {
		case "metadata.name":
			return "{{.Name}}", nil, true
		case "metadata.labels['" + PodIndexLabel + "']":
			return "{{.Ordinal}}", nil, true
		case "metadata.namespace":
			ns := p.ns
			if ns == "" {
				ns = "default"
			}
			return escapeTemplate(ns), nil, true
		}
		p.k.fail(p.file, fr.n, fr.at("fieldPath"), fmt.Sprintf("%q: a replica knows its metadata.name, metadata.namespace and pod-index label only", field))
		return "", nil, false
	}
	for _, src := range []struct{ key, kind string }{{"configMapKeyRef", "ConfigMap"}, {"secretKeyRef", "Secret"}} {
		ref := vf.child(src.key)
		if ref == nil {
			continue
		}
		obj, key, optional := ref.str("name"), ref.str("key"), ref.boolean("optional")
		ref.rest()
		vf.rest()
		d := p.k.find(src.kind, obj, p.ns)
		if d == nil {
			if !optional {
				p.k.fail(p.file, ref.n, ref.path, fmt.Sprintf("%s %q is not in these files", src.kind, obj))
			}
			return "", nil, false
		}
		d.used = true
		p.k.keepConfigMap(d)
		data, err := objectData(d)
		if b, ok := data[key]; err == nil && ok {
			return string(b), &envref.Ref{Kind: src.kind, Name: obj, Key: key}, true
		}
		if !optional {
			p.k.fail(p.file, ref.n, ref.at("key"), fmt.Sprintf("%s %q has no key %q", src.kind, obj, key))
		}
		return "", nil, false
	}
	vf.rest()
	return "", nil, false
}

// quantities maps the cpu and memory of resources.limits (or requests).
func (p *mapper) quantities(l *node, setPath string) config.Resources {
	var out config.Resources
	if l == nil {
		return out
	}
	if v := l.get("cpu"); v != nil {
		if n, err := kubeCPU(v.Value); err == nil {
			out.CPUs = n
		} else {
			p.k.fail(p.file, v, l.at("cpu"), err.Error())
		}
		p.mark(setPath+".cpus", v.Line)
	}
	if v := l.get("memory"); v != nil {
		if n, err := kubeQuantity(v.Value); err == nil {
			out.Memory = binaryQuantity(n)
		} else {
			p.k.fail(p.file, v, l.at("memory"), err.Error())
		}
		p.mark(setPath+".memory", v.Line)
	}
	l.rest()
	return out
}

func (p *mapper) mainContainer(c *node, podUser string) {
	f := p.container(c, "template", podUser)
	t := &p.set.Template
	t.Image, t.ImagePullPolicy, t.WorkingDir, t.User = f.Image, f.ImagePullPolicy, f.WorkingDir, f.User
	t.Command, t.Args, t.Env, t.EnvRefs, t.Resources = f.Command, f.Args, f.Env, f.EnvRefs, f.Resources
	p.names.Container = mapValueString(c.n, "name")
	named := map[string]int{}
	for i, port := range c.list("ports") {
		n, _ := port.integer("containerPort")
		proto := strings.ToLower(port.str("protocol"))
		if name := port.str("name"); name != "" {
			named[name] = n
			kept := config.KubernetesPort{Name: name, ContainerPort: n, Protocol: proto}
			if proto == "tcp" {
				kept.Protocol = "" // the default, as an export writes it out
			}
			p.names.Ports = append(p.names.Ports, kept)
		}
		port.unsupported("hostPort", "ostset publishes hostPort+ordinal for each replica, not one host port: write a set file to publish ports")
		port.unsupported("hostIP", "see hostPort")
		port.rest()
		t.Ports = append(t.Ports, config.Port{ContainerPort: n, Protocol: proto})
		p.mark(fmt.Sprintf("template.ports[%d]", i), port.n.Line)
	}
	if probe := c.child("readinessProbe"); probe != nil {
		t.Healthcheck = p.probe(probe, named)
		p.mark("template.healthcheck", c.line("readinessProbe"))
	}
	t.Liveness, t.Startup = p.ownProbe(c, "livenessProbe", "liveness", named), p.ownProbe(c, "startupProbe", "startup", named)
	for _, m := range c.list("volumeMounts") {
		p.mount(m, "template")
	}
	c.rest()
}

func (p *mapper) initContainer(i int, c *node, podUser string) {
	setPath := fmt.Sprintf("template.initContainers[%d]", i)
	ic := config.InitContainer{Name: mapValueString(c.n, "name")}
	p.mark(setPath+".name", c.line("name"))
	f := p.container(c, setPath, podUser)
	ic.Image, ic.ImagePullPolicy, ic.WorkingDir, ic.User = f.Image, f.ImagePullPolicy, f.WorkingDir, f.User
	ic.Command, ic.Args, ic.Env, ic.EnvRefs, ic.Resources = f.Command, f.Args, f.Env, f.EnvRefs, f.Resources
	c.unsupported("restartPolicy", "a sidecar init container is not supported: ostset runs one container per replica")
	for _, m := range c.list("volumeMounts") {
		if mount, ok := p.mount(m, setPath); ok {
			ic.VolumeMounts = append(ic.VolumeMounts, mount)
		}
	}
	c.rest()
	p.set.Template.InitContainers = append(p.set.Template.InitContainers, ic)
}

func mapValueString(n *yaml.Node, key string) string {
	if v := mapValue(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// mount maps one volumeMount: a claim gives its per-ordinal volume the
// mount path (every container of a replica sees a claim at one path), an
// emptyDir is a tmpfs of the main container, a ConfigMap or Secret a
// read-only bind mount. It returns the bind mount for an init container.
func (p *mapper) mount(m *node, setPath string) (config.VolumeMount, bool) {
	name, target := m.str("name"), m.str("mountPath")
	readOnly := m.boolean("readOnly")
	m.rest() // subPath, mountPropagation...: reported
	if claim := p.claimNamed(name); claim != nil {
		switch {
		case readOnly:
			p.k.fail(p.file, m.keyNode("readOnly"), m.at("readOnly"), "a per-ordinal volume is mounted read-write")
		case claim.MountPath == "":
			claim.MountPath = target
			for i, c := range p.set.VolumeClaimTemplates {
				if c.Name == name {
					p.mark(fmt.Sprintf("volumeClaimTemplates[%d].mountPath", i), m.line("mountPath"))
				}
			}
		case claim.MountPath != target:
			p.k.fail(p.file, m.keyNode("mountPath"), m.at("mountPath"), fmt.Sprintf("%q: ostset mounts claim %q at one path in every container, %q", target, name, claim.MountPath))
		}
		return config.VolumeMount{}, false
	}
	v := p.volumes[name]
	if v == nil {
		p.k.fail(p.file, m.n, m.path, fmt.Sprintf("volume %q is neither a volumeClaimTemplate nor a supported volume of the pod", name))
		return config.VolumeMount{}, false
	}
	v.used = true
	if v.missing {
		return config.VolumeMount{}, false // reported with the volume
	}
	if v.source != "" {
		mount := config.VolumeMount{Source: v.source, Target: target, ReadOnly: true}
		if kv := (config.KubernetesVolume{Name: name, Kind: v.kind, Object: v.object, MountPath: target}); !slices.Contains(p.names.Volumes, kv) {
			p.names.Volumes = append(p.names.Volumes, kv)
		}
		if setPath == "template" {
			p.set.Template.VolumeMounts = append(p.set.Template.VolumeMounts, mount)
			p.mark(fmt.Sprintf("template.volumeMounts[%d]", len(p.set.Template.VolumeMounts)-1), m.n.Line)
		}
		return mount, true
	}
	if setPath != "template" {
		p.k.fail(p.file, m.n, m.path, fmt.Sprintf("emptyDir %q: an init container cannot share a tmpfs with the replica container; use a volumeClaimTemplate", name))
		return config.VolumeMount{}, false
	}
	entry := target
	if v.tmpfs != "" {
		entry += ":" + v.tmpfs
	}
	p.set.Template.Tmpfs = append(p.set.Template.Tmpfs, entry)
	p.mark(fmt.Sprintf("template.tmpfs[%d]", len(p.set.Template.Tmpfs)-1), m.n.Line)
	return config.VolumeMount{}, false
}

func (p *mapper) claimNamed(name string) *config.VolumeClaimTemplate {
	for i := range p.set.VolumeClaimTemplates {
		if p.set.VolumeClaimTemplates[i].Name == name {
			return &p.set.VolumeClaimTemplates[i]
		}
	}
	return nil
}

// ownProbe maps a livenessProbe or startupProbe onto the probe ostset runs
// (field), and keeps it as written for an export.
func (p *mapper) ownProbe(c *node, key, field string, ports map[string]int) *config.Healthcheck {
	probe := c.child(key)
	if probe == nil {
		return nil
	}
	p.k.keep("container."+key, probe.n)
	p.mark("template."+field, c.line(key))
	return p.probe(probe, ports)
}

// Kubernetes' probe defaults.
const (
	kubeProbePeriod    = 10
	kubeProbeTimeout   = 1
	kubeProbeThreshold = 3
)

// probe maps a readinessProbe to the healthcheck, which is what readiness
// is to ostset. An exec probe runs as it is; a tcpSocket or httpGet probe
// runs ostset's own probe, which the engine mounts in the container (see
// ProbePath), so that it needs nothing from the image.
func (p *mapper) probe(pr *node, ports map[string]int) *config.Healthcheck {
	h := &config.Healthcheck{}
	period, timeout, threshold, delay := kubeProbePeriod, kubeProbeTimeout, kubeProbeThreshold, 0
	if n, ok := pr.integer("periodSeconds"); ok {
		period = n
	}
	if n, ok := pr.integer("timeoutSeconds"); ok {
		timeout = n
	}
	if n, ok := pr.integer("failureThreshold"); ok {
		threshold = n
	}
	if n, ok := pr.integer("initialDelaySeconds"); ok {
		delay = n
	}
	if n, ok := pr.integer("successThreshold"); ok && n != 1 {
		p.k.fail(p.file, pr.keyNode("successThreshold"), pr.at("successThreshold"), "Docker counts a replica healthy after one success")
	}
	h.Interval = config.Duration(int64(period) * 1e9)
	h.Timeout = config.Duration(int64(timeout) * 1e9)
	h.Retries = threshold
	h.StartPeriod = config.Duration(int64(delay) * 1e9)
	switch {
	case pr.get("exec") != nil:
		ex := pr.child("exec")
		cmd := ex.strings("command")
		ex.rest()
		for i := range cmd {
			cmd[i] = escapeTemplate(cmd[i])
		}
		if len(cmd) == 3 && cmd[0] == "sh" && cmd[1] == "-c" {
			h.Test = []string{"CMD-SHELL", cmd[2]}
		} else {
			h.Test = append([]string{"CMD"}, cmd...)
		}
	case pr.get("tcpSocket") != nil:
		ts := pr.child("tcpSocket")
		port := p.probePort(ts, ports)
		host := ts.str("host")
		ts.rest()
		h.Test = kubeprobe.Test(config.ProbeTCP, net.JoinHostPort(orLoopback(host), strconv.Itoa(port)))
	case pr.get("httpGet") != nil:
		hg := pr.child("httpGet")
		port := p.probePort(hg, ports)
		host, scheme, urlPath := hg.str("host"), hg.str("scheme"), hg.str("path")
		hg.unsupported("httpHeaders", "ostset's probe sends no headers")
		hg.rest()
		if scheme == "" {
			scheme = "HTTP"
		}
		if scheme != "HTTP" && scheme != "HTTPS" {
			p.k.fail(p.file, hg.keyNode("scheme"), hg.at("scheme"), fmt.Sprintf("%q: HTTP or HTTPS", scheme))
		}
		if !strings.HasPrefix(urlPath, "/") {
			urlPath = "/" + urlPath
		}
		url := fmt.Sprintf("%s://%s%s", strings.ToLower(scheme), net.JoinHostPort(orLoopback(host), strconv.Itoa(port)), urlPath)
		h.Test = kubeprobe.Test(config.ProbeHTTP, url)
	default:
		p.k.fail(p.file, pr.n, pr.path, "a probe needs exec, tcpSocket or httpGet (grpc is not supported)")
	}
	pr.rest()
	return h
}

func orLoopback(host string) string {
	if host == "" {
		return "127.0.0.1"
	}
	return host
}

// probePort reads a probe's port: a number or the name of a container port.
func (p *mapper) probePort(n *node, ports map[string]int) int {
	v := n.get("port")
	if v == nil {
		p.k.invalid(p.file, n.n, n.at("port"), "a probe needs a port")
		return 0
	}
	if port, err := strconv.Atoi(v.Value); err == nil && port > 0 && port <= maxPort {
		return port
	}
	if port, ok := ports[v.Value]; ok {
		return port
	}
	p.k.fail(p.file, v, n.at("port"), fmt.Sprintf("%q is neither a port number nor the name of a container port", v.Value))
	return 0
}

// escapeTemplate writes s so that ostset's per-replica expansion gives s
// back: a manifest's text is not a template.
func escapeTemplate(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return strings.ReplaceAll(s, "{{", `{{"{{"}}`)
}

// kubeRefRe matches what Kubernetes expands in command, args and env
// values: $$ and $(NAME).
var kubeRefRe = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][-._A-Za-z0-9]*)\)`)

// expandKubeRefs expands s as Kubernetes does, with defined giving each
// variable's value as ostset writes it (a template such as {{.Ordinal}}, or
// text already escaped): $$ is $, $(NAME) is the value of NAME when it is
// defined, and stays as written when it is not. The text around is escaped
// for ostset's expansion.
func expandKubeRefs(s string, defined map[string]string) string {
	if !strings.Contains(s, "$") {
		return escapeTemplate(s)
	}
	var b strings.Builder
	last := 0
	text := func(t string) {
		// A { just before a template would open an action with it.
		if strings.HasSuffix(t, "{") {
			b.WriteString(escapeTemplate(t[:len(t)-1]) + `{{"{"}}`)
		} else {
			b.WriteString(escapeTemplate(t))
		}
	}
	var pending strings.Builder
	for _, m := range kubeRefRe.FindAllStringSubmatchIndex(s, -1) {
		pending.WriteString(s[last:m[0]])
		last = m[1]
		if m[2] < 0 { // $$
			pending.WriteString("$")
			continue
		}
		v, ok := defined[s[m[2]:m[3]]]
		if !ok {
			pending.WriteString(s[m[0]:m[1]])
			continue
		}
		text(pending.String())
		pending.Reset()
		b.WriteString(v)
	}
	pending.WriteString(s[last:])
	b.WriteString(escapeTemplate(pending.String()))
	return b.String()
}

// kubeCPU writes a Kubernetes CPU quantity ("500m", "2", "0.5") as a
// decimal number of CPUs.
func kubeCPU(s string) (string, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSuffix(s, "m"))
	if !ok || r.Sign() <= 0 || strings.HasPrefix(s, "+") {
		return "", fmt.Errorf("%q is not a CPU quantity (like 500m or 2)", s)
	}
	if strings.HasSuffix(s, "m") {
		r.Quo(r, big.NewRat(1000, 1))
	}
	out := strings.TrimRight(strings.TrimRight(r.FloatString(9), "0"), ".")
	if out == "0" {
		return "", fmt.Errorf("%q is less than a billionth of a CPU", s)
	}
	return out, nil
}

// kubeQuantityRe is a Kubernetes quantity: a number and a binary or decimal
// suffix, or an exponent.
var kubeQuantityRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|[eE][0-9]+)?$`)

var kubeQuantityScale = map[string]int64{
	"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
	"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}

// kubeQuantity reads a Kubernetes byte quantity ("1Gi", "500M", "1e9") as
// bytes, rounded up as Kubernetes does.
func kubeQuantity(s string) (int64, error) {
	m := kubeQuantityRe.FindStringSubmatch(s)
	bad := fmt.Errorf("%q is not a byte quantity (like 512Mi or 1G)", s)
	if m == nil {
		return 0, bad
	}
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return 0, bad
	}
	if scale, known := kubeQuantityScale[m[2]]; known {
		r.Mul(r, new(big.Rat).SetInt64(scale))
	} else {
		exp, err := strconv.Atoi(m[2][1:])
		if err != nil || exp > 18 {
			return 0, bad
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)))
	}
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if new(big.Rat).SetInt(n).Cmp(r) < 0 {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() || n.Sign() <= 0 {
		return 0, bad
	}
	return n.Int64(), nil
}
