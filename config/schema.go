package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ostset/ostset/internal/suggest"
	"github.com/ostset/ostset/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// checkSchema reports, with the field path, every key n has that t does not
// know and every value of the wrong shape. It does the job of yaml's
// KnownFields, which only works on a Decoder reading text, and words the errors
// for users ("expected a list") rather than in Go types. Null is accepted
// everywhere: it means "not set".
//
// It returns the paths of the values it found wrong: they decode as zero
// values, and validation errors about them would only repeat the point.
func checkSchema(n *yaml.Node, t reflect.Type, path string, report func(*yaml.Node, string, string)) (bad []string) {
	c := schemaChecker{report: report, inAlias: map[*yaml.Node]bool{}}
	c.check(n, t, path)
	return c.bad
}

type schemaChecker struct {
	report  func(*yaml.Node, string, string)
	bad     []string
	inAlias map[*yaml.Node]bool // aliases being followed, to stop at a cycle
}

func (c *schemaChecker) fail(n *yaml.Node, path, msg string) {
	c.report(n, path, msg)
	c.bad = append(c.bad, path)
}

func (c *schemaChecker) check(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode {
		if c.inAlias[n.Alias] {
			c.fail(n, path, "alias refers to itself")
			return
		}
		c.inAlias[n.Alias] = true
		defer delete(c.inAlias, n.Alias)
		n = n.Alias
	}
	if n.ShortTag() == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := reflect.New(t).Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			c.fail(n, path, stripYAMLLine(err))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if c.expectKind(n, yaml.MappingNode, path) {
			fields := yamlFields(t)
			c.eachPair(n, path, func(k, v *yaml.Node) {
				if strings.HasPrefix(k.Value, "x-") {
					return // an extension field, as in compose: for anchors, ignored
				}
				ft, ok := fields[k.Value]
				if !ok {
					// The value is ignored, not wrong: nothing to suppress.
					c.report(k, path, unknownField(k.Value, fields))
					return
				}
				c.check(v, ft, yamlnode.Join(path, k.Value))
			})
		}
	case reflect.Map:
		if c.expectKind(n, yaml.MappingNode, path) {
			c.eachPair(n, path, func(k, v *yaml.Node) {
				if k.Kind != yaml.ScalarNode {
					c.fail(k, path, "keys must be strings")
					return
				}
				c.check(v, t.Elem(), yamlnode.Join(path, k.Value))
			})
		}
	case reflect.Slice:
		if c.expectKind(n, yaml.SequenceNode, path) {
			for i, item := range n.Content {
				c.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.String:
		c.expectKind(n, yaml.ScalarNode, path)
	case reflect.Int:
		if c.expectKind(n, yaml.ScalarNode, path) && n.ShortTag() != "!!int" {
			c.fail(n, path, fmt.Sprintf("%q is not an integer", n.Value))
		}
	case reflect.Bool:
		if c.expectKind(n, yaml.ScalarNode, path) && n.ShortTag() != "!!bool" {
			c.fail(n, path, fmt.Sprintf("%q is not true or false", n.Value))
		}
	default:
		panic(fmt.Sprintf("config: checkSchema does not handle %v", t))
	}
}

// eachPair calls fn for every key/value of mapping n, following merge keys
// ("<<: *base") and reporting keys written twice.
func (c *schemaChecker) eachPair(n *yaml.Node, path string, fn func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				if m.Kind == yaml.AliasNode {
					m = m.Alias
				}
				if m.Kind != yaml.MappingNode || c.inAlias[m] {
					c.fail(k, path, "a merge key (<<) needs a mapping or a list of mappings")
					continue
				}
				c.inAlias[m] = true
				c.eachPair(m, path, fn)
				delete(c.inAlias, m)
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			// yaml then decodes nothing of the whole mapping.
			c.fail(k, path, fmt.Sprintf("key %q is already defined at line %d", k.Value, first))
			continue
		}
		seen[k.Value] = k.Line
		fn(k, v)
	}
}

func (c *schemaChecker) expectKind(n *yaml.Node, want yaml.Kind, path string) bool {
	if n.Kind == want {
		return true
	}
	c.fail(n, path, fmt.Sprintf("expected %s, got %s", yamlnode.KindName(want, ""), yamlnode.KindName(n.Kind, n.Value)))
	return false
}

// unknownField words an unknown key, suggesting the field it most likely
// misspells: one that differs in case only, or by at most two letters.
func unknownField(name string, fields map[string]reflect.Type) string {
	if best := closestKey(name, fields); best != "" {
		return fmt.Sprintf("unknown field %q (did you mean %q?)", name, best)
	}
	return fmt.Sprintf("unknown field %q", name)
}

// yamlFields maps the yaml names of t's fields to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields
}

// stripYAMLLine turns yaml's "line 12: message" into "message": callers put
// the line in front themselves.
func stripYAMLLine(err error) string {
	msg := err.Error()
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) && len(te.Errors) > 0 {
		msg = strings.Join(te.Errors, "; ")
	}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		return m[2]
	}
	return msg
}

// closestKey is Closest over a map's keys.
func closestKey[V any](name string, m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return suggest.Closest(name, keys)
}
