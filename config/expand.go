package config

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/ostset/ostset/internal/yamlnode"
)

// ReplicaVars are the values a per-replica template ({{...}}) may use.
type ReplicaVars struct {
	Set     string
	Ordinal int
	Name    string // <set>-<ordinal>: container name and hostname
	Service string
	// Replicas is the desired replica count when the replica is created. A
	// replica keeps what it was created with: scaling recreates nothing.
	Replicas int
	// Ordinals are the set's ordinals, first to last, and Peers the replicas
	// they name, as the set is when the replica is created.
	Ordinals []int
	Peers    []Peer
}

// Peer is one replica of the set, as {{range .Peers}} sees it.
type Peer struct {
	Name    string // <set>-<ordinal>
	Ordinal int
	Host    string // <set>-<ordinal>.<service>: its stable DNS name
}

// ReplicaVars returns the values for the replica with the given ordinal of s
// as s is now (its replica count and ordinals), under service: the service
// name of the revision the replica is created at.
func (s Set) ReplicaVars(service string, ordinal int) ReplicaVars {
	first, end := s.FirstOrdinal(), s.EndOrdinal()
	v := ReplicaVars{Set: s.Name, Ordinal: ordinal, Name: replicaName(s.Name, ordinal), Service: service, Replicas: max(end-first, 0)}
	for i := first; i < end; i++ {
		v.Ordinals = append(v.Ordinals, i)
		v.Peers = append(v.Peers, Peer{Name: replicaName(s.Name, i), Ordinal: i, Host: replicaName(s.Name, i) + "." + service})
	}
	return v
}

// replicaName is the container name of an ordinal (engine.ReplicaName).
func replicaName(set string, ordinal int) string { return fmt.Sprintf("%s-%d", set, ordinal) }

// fixedFields are the fields, by YAML name wherever they appear, that are used
// as written: their values are checked when the file is loaded (an image is
// resolved to one ID for the revision, names must be valid, resources and
// ports parse), so they cannot differ per replica.
var fixedFields = map[string]bool{
	"name":            true,
	"envRefs":         true,
	"image":           true,
	"imagePullPolicy": true,
	"restartPolicy":   true,
	"resources":       true,
	"ports":           true,
	"stopSignal":      true,
	"shmSize":         true,
	"ulimits":         true,
	"sysctls":         true,
	"tmpfs":           true,
	"capAdd":          true,
	"capDrop":         true,
	"init":            true,
	"extraHosts":      true,
}

// Expand returns a copy of t with {{...}} expanded per replica in every string
// field but the fixed ones (see ExpandFields). t is not modified.
func Expand(t Template, v ReplicaVars) (Template, error) {
	err := ExpandFields(&t, "template", v)
	return t, err
}

// ExpandFields expands {{...}} with v in every string that the struct ptr
// points to holds, however deep: string fields, list items, map values (never
// map keys), and the same inside nested structs, pointers and lists of
// structs. Fields named in fixedFields are left as written. Lists, maps and
// pointed-to structs that it changes are replaced by copies, so nothing the
// struct shares with another value is modified. Errors name each field from
// path ("template.args[1]: ..."), all of them.
func ExpandFields(ptr any, path string, v ReplicaVars) error {
	var errs []error
	walkStrings(reflect.ValueOf(ptr).Elem(), path, func(p, s string) (string, bool) {
		out, err := ExpandString(s, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			return s, false
		}
		return out, out != s
	})
	return errors.Join(errs...)
}

var stringType = reflect.TypeFor[string]()

// walkStrings calls fn on every expandable string under v (addressable) and
// stores what fn returns when it reports a change, copying lists, maps and
// pointed-to structs before it writes into them.
func walkStrings(v reflect.Value, path string, fn func(path, s string) (string, bool)) bool {
	switch v.Kind() {
	case reflect.String:
		if v.Type() != stringType { // named string types hold checked values
			return false
		}
		out, changed := fn(path, v.String())
		if changed {
			v.SetString(out)
		}
		return changed
	case reflect.Struct:
		changed := false
		for f := range v.Type().Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" {
				name = strings.ToLower(f.Name) // as yaml names an untagged field
			}
			if !f.IsExported() || name == "-" || fixedFields[name] {
				continue
			}
			changed = walkStrings(v.FieldByIndex(f.Index), yamlnode.Join(path, name), fn) || changed
		}
		return changed
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		cp := reflect.New(v.Type().Elem())
		cp.Elem().Set(v.Elem())
		if walkStrings(cp.Elem(), path, fn) {
			v.Set(cp)
			return true
		}
		return false
	case reflect.Slice:
		if v.Len() == 0 {
			return false
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		changed := false
		for i := range cp.Len() {
			changed = walkStrings(cp.Index(i), fmt.Sprintf("%s[%d]", path, i), fn) || changed
		}
		if changed {
			v.Set(cp)
		}
		return changed
	case reflect.Map:
		if v.Len() == 0 || v.Type().Key().Kind() != reflect.String {
			return false
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
		cp := reflect.MakeMapWithSize(v.Type(), v.Len())
		changed := false
		for _, k := range keys {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			changed = walkStrings(e, path+"."+k.String(), fn) || changed
			cp.SetMapIndex(k, e)
		}
		if changed {
			v.Set(cp)
		}
		return changed
	}
	return false
}

// ExpandString expands the template s for one replica, as Expand does each
// string of a template.
func ExpandString(s string, v ReplicaVars) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	tmpl, err := template.New("t").Option("missingkey=error").Parse(s)
	if err != nil {
		return "", templateError(err)
	}
	if len(tmpl.Templates()) > 1 {
		return "", errors.New("invalid template: {{define}} and {{block}} are not supported")
	}
	if err := checkActions(tmpl.Root, false); err != nil {
		return "", fmt.Errorf("invalid template: %w", err)
	}
	b := limitedBuilder{limit: MaxExpandedLength}
	if err := tmpl.Execute(&b, v); err != nil {
		if errors.Is(err, errTooLong) {
			return "", fmt.Errorf("the template expands to more than %d bytes", MaxExpandedLength)
		}
		return "", templateError(err)
	}
	return b.String(), nil
}

// checkActions refuses what could make a template run without end: calling a
// template ({{template}}, which may recurse), and a {{range}} over anything but
// the replicas (.Peers, .Ordinals: {{range 1000000000}} is a loop) or inside
// another {{range}}. What is left runs in time linear in the replica count.
func checkActions(n parse.Node, inRange bool) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkActions(c, inRange); err != nil {
				return err
			}
		}
	case *parse.TemplateNode:
		return errors.New("{{template}} is not supported")
	case *parse.IfNode:
		return checkBranches(&n.BranchNode, inRange)
	case *parse.WithNode:
		return checkBranches(&n.BranchNode, inRange)
	case *parse.RangeNode:
		if inRange {
			return errors.New("{{range}} may not be nested in another {{range}}")
		}
		if !overReplicas(n.Pipe) {
			return errors.New("{{range}} goes over .Peers or .Ordinals only")
		}
		return checkBranches(&n.BranchNode, true)
	}
	return nil
}

func checkBranches(b *parse.BranchNode, inRange bool) error {
	if err := checkActions(b.List, inRange); err != nil {
		return err
	}
	return checkActions(b.ElseList, inRange)
}

// overReplicas reports whether a {{range}} pipeline is .Peers or .Ordinals
// (or $.Peers, $.Ordinals), with or without variables declared.
func overReplicas(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	var idents []string
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		idents = a.Ident
	case *parse.VariableNode:
		if len(a.Ident) != 2 || a.Ident[0] != "$" {
			return false
		}
		idents = a.Ident[1:]
	}
	return len(idents) == 1 && (idents[0] == "Peers" || idents[0] == "Ordinals")
}

// perReplica reports whether the template s may expand differently from one
// replica to another: only .Ordinal and .Name differ, so a template that uses
// neither (outside {{range}}, where the dot is a peer) nor the whole of the
// dot expands alike for all. A template that does not parse counts as
// differing.
func perReplica(s string) bool {
	tmpl, err := template.New("t").Parse(s)
	if err != nil {
		return true
	}
	return usesReplica(tmpl.Root, false)
}

func usesReplica(n parse.Node, inRange bool) bool {
	some := func(nodes ...parse.Node) bool {
		for _, c := range nodes {
			if c != nil && !reflect.ValueOf(c).IsNil() && usesReplica(c, inRange) {
				return true
			}
		}
		return false
	}
	perField := func(idents []string) bool {
		return len(idents) == 0 || idents[0] == "Ordinal" || idents[0] == "Name"
	}
	switch n := n.(type) {
	case *parse.ListNode:
		return some(n.Nodes...)
	case *parse.ActionNode:
		return some(n.Pipe)
	case *parse.IfNode:
		return some(n.Pipe, n.List, n.ElseList)
	case *parse.WithNode:
		return some(n.Pipe, n.List, n.ElseList)
	case *parse.RangeNode:
		if some(n.Pipe) {
			return true
		}
		inRange = true
		return some(n.List, n.ElseList)
	case *parse.PipeNode:
		nodes := make([]parse.Node, 0, len(n.Cmds))
		for _, c := range n.Cmds {
			nodes = append(nodes, c)
		}
		return some(nodes...)
	case *parse.CommandNode:
		return some(n.Args...)
	case *parse.ChainNode:
		return some(n.Node)
	case *parse.DotNode:
		return !inRange
	case *parse.FieldNode:
		return !inRange && perField(n.Ident)
	case *parse.VariableNode:
		return n.Ident[0] == "$" && perField(n.Ident[1:])
	case *parse.TemplateNode:
		return true
	}
	return false
}

// MaxExpandedLength bounds what one templated string expands to, as Linux
// bounds one argument or environment string of a process (MAX_ARG_STRLEN,
// 128 KiB): a {{range .Peers}} or a wide printf could otherwise take the
// memory and time of loading the file.
const MaxExpandedLength = 128 << 10

var errTooLong = errors.New("expansion too long")

// limitedBuilder is a strings.Builder that refuses to grow beyond limit.
type limitedBuilder struct {
	strings.Builder
	limit int
}

func (b *limitedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, errTooLong
	}
	return b.Builder.Write(p)
}

var (
	templateFieldRe  = regexp.MustCompile(`can't evaluate field (\w+) in type (?:\w+\.)?(\w+)`)
	templatePrefixRe = regexp.MustCompile(`^template: t:\d+(?::\d+)?: (?:executing "t" at <[^>]*>: )?`)
)

// templateError drops text/template's "template: t:1:2: executing..." noise.
func templateError(err error) error {
	msg := err.Error()
	if m := templateFieldRe.FindStringSubmatch(msg); m != nil {
		if m[2] == "Peer" {
			return fmt.Errorf("unknown template field .%s of a peer (use .Name, .Ordinal or .Host)", m[1])
		}
		return fmt.Errorf("unknown template field .%s (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)", m[1])
	}
	msg = templatePrefixRe.ReplaceAllString(msg, "")
	// text/template lets an index one past the end through to reflect.
	msg = strings.Replace(msg, "reflect: slice index out of range", "index out of range", 1)
	// A message quotes the template, which may span lines: keep it one line.
	msg = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(msg)
	return fmt.Errorf("invalid template: %s", msg)
}
