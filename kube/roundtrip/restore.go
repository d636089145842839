// Package roundtrip gives an export of an imported manifest back in the form
// it was written: its objects in the file's order, its keys in their order,
// its list items (containers, ports, variables) in theirs, its scalars as they
// were written (quotes, "500m" rather than "0.5") wherever they mean the same
// to ostset, and none of the defaults an export spells out that the manifest
// left to Kubernetes. It also reads and writes the one annotation an export
// adds, with the digests of the fields it keeps. It knows YAML and the
// set-file model only: whether two forms mean the same is the importer's call
// (a function handed in), so that nothing here copies its rules.
package roundtrip

import (
	"go.yaml.in/yaml/v3"
)

// Same reports whether a candidate output imports as the export does.
type Same func(docs []*yaml.Node) bool

// Identity names an object: its kind, namespace and name.
func Identity(n *yaml.Node) string {
	md := value(n, "metadata")
	return scalar(value(n, "kind")) + "/" + scalar(value(md, "namespace")) + "/" + scalar(value(md, "name"))
}

// Restore lays the generated objects over the written ones: the result has
// the written objects' order and form, and the generated content. Objects
// generated and not written come after, in their order; written objects not
// generated are left out. Every step back toward the written form (a
// scalar as written, a default left out, a key or item written and not
// generated put back in its place) is kept only when same still holds, one
// at a time, so the result imports as generated does.
func Restore(written, generated []*yaml.Node, same Same) []*yaml.Node {
	r := &restorer{swapped: map[*yaml.Node]*yaml.Node{}, removed: map[*yaml.Node]bool{}, dropped: map[*yaml.Node]bool{}}
	byID := map[string]*yaml.Node{}
	for _, g := range generated {
		byID[Identity(g)] = g
	}
	var tree []*yaml.Node
	done := map[*yaml.Node]bool{}
	for _, w := range written {
		if g := byID[Identity(w)]; g != nil && !done[g] {
			done[g] = true
			tree = append(tree, r.merge(w, g))
		}
	}
	for _, g := range generated {
		if !done[g] {
			tree = append(tree, g)
		}
	}
	if same == nil {
		return r.render(tree)
	}
	for _, c := range r.choices {
		c(true)
		if !same(r.render(tree)) {
			c(false)
		}
	}
	return r.render(tree)
}

// restorer holds the merged tree's open choices: a generated scalar that
// may be written as it was (swapped), a generated key the manifest did not
// have that may be left out (removed).
type restorer struct {
	swapped map[*yaml.Node]*yaml.Node
	removed map[*yaml.Node]bool // key nodes
	dropped map[*yaml.Node]bool // list items
	choices []func(toWritten bool)
}

func (r *restorer) merge(w, g *yaml.Node) *yaml.Node {
	w, g = resolve(w), resolve(g)
	if w.Kind != g.Kind {
		return g
	}
	switch g.Kind {
	case yaml.ScalarNode:
		if w.Value == g.Value && w.ShortTag() == g.ShortTag() {
			return w
		}
		r.choices = append(r.choices, func(on bool) {
			if on {
				r.swapped[g] = w
			} else {
				delete(r.swapped, g)
			}
		})
		return g
	case yaml.MappingNode:
		out := *w
		out.Content = nil
		for i := 0; i+1 < len(w.Content); i += 2 {
			k := w.Content[i]
			if gv := value(g, k.Value); gv != nil {
				out.Content = append(out.Content, k, r.merge(w.Content[i+1], gv))
				continue
			}
			// Written and not generated (what ostset does not read, or
			// what --lenient let it go without): back in its place if
			// it reads alike.
			out.Content = append(out.Content, k, w.Content[i+1])
			r.removed[k] = true
			r.choices = append(r.choices, func(on bool) { r.removed[k] = !on })
		}
		for i := 0; i+1 < len(g.Content); i += 2 {
			k := g.Content[i]
			if value(w, k.Value) != nil {
				continue
			}
			out.Content = append(out.Content, k, g.Content[i+1])
			if required[k.Value] {
				continue
			}
			r.choices = append(r.choices, func(on bool) {
				if on {
					r.removed[k] = true
				} else {
					delete(r.removed, k)
				}
			})
		}
		return &out
	case yaml.SequenceNode:
		out := *w
		out.Content = r.mergeItems(w.Content, g.Content)
		return &out
	}
	return g
}

// required are the keys a cluster needs (a selector, the pod template's
// metadata and labels, a claim's access modes and request, a container's name and image),
// and annotations (kubectl's restartedAt, which an import does not read): an
// export adds them where the manifest left them out.
var required = map[string]bool{"selector": true, "metadata": true, "labels": true, "annotations": true, "accessModes": true, "resources": true,
	"name": true, "image": true, "containers": true, "containerPort": true, "port": true}

// itemKeys name a list item: a container, variable, volume or port by its
// name, a port without one by its number, a mount by its path.
var itemKeys = []string{"name", "containerPort", "port", "mountPath"}

// mergeItems pairs the written items with the generated ones by the first
// key of itemKeys that every generated item has (else by position), in the
// written order; generated items without a pair follow, in their order.
func (r *restorer) mergeItems(w, g []*yaml.Node) []*yaml.Node {
	key := ""
	for _, k := range itemKeys {
		all := len(g) > 0
		for _, item := range g {
			all = all && value(item, k) != nil
		}
		if all {
			key = k
			break
		}
	}
	used := make([]bool, len(g))
	var out []*yaml.Node
	for i, wi := range w {
		j := -1
		if key == "" {
			if i < len(g) {
				j = i
			}
		} else if wk := value(wi, key); wk != nil {
			for n, gi := range g {
				if !used[n] && scalar(value(gi, key)) == wk.Value {
					j = n
					break
				}
			}
		}
		if j >= 0 {
			used[j] = true
			out = append(out, r.merge(wi, g[j]))
			continue
		}
		out = append(out, wi) // written only: as a key written only
		r.dropped[wi] = true
		r.choices = append(r.choices, func(on bool) { r.dropped[wi] = !on })
	}
	for n, gi := range g {
		if !used[n] {
			out = append(out, gi)
			r.choices = append(r.choices, func(on bool) { r.dropped[gi] = on })
		}
	}
	return out
}

// render copies the tree with the choices taken.
func (r *restorer) render(tree []*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, len(tree))
	for i, n := range tree {
		out[i] = r.copy(n)
	}
	return out
}

func (r *restorer) copy(n *yaml.Node) *yaml.Node {
	if w, ok := r.swapped[n]; ok {
		n = w
	}
	c := *n
	c.Content = nil
	for i := 0; i < len(n.Content); i++ {
		if n.Kind == yaml.MappingNode && i+1 < len(n.Content) && r.removed[n.Content[i]] {
			i++
			continue
		}
		if n.Kind == yaml.SequenceNode && r.dropped[n.Content[i]] {
			continue
		}
		c.Content = append(c.Content, r.copy(n.Content[i]))
	}
	return &c
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// value returns the value of key in mapping n, or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
