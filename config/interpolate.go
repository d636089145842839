package config

import (
	"fmt"
	"strings"

	"github.com/ostset/ostset/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// RuntimePrefix starts the names of the variables ostset sets in every replica
// (OSTSET_SET, OSTSET_ORDINAL, OSTSET_NAME, OSTSET_SERVICE). A reference to
// such a name in a set file ($OSTSET_ORDINAL in a shell command) is meant for
// the container, not for ostset's own environment, so interpolation leaves it
// as written.
const RuntimePrefix = "OSTSET_"

// interpolateNode expands environment variables in every scalar value under n.
// Working on parsed values rather than on the raw text is what docker compose
// does: a value containing quotes, '#' or ": " cannot change the YAML structure,
// comments are left alone, and every node keeps its line. unset, if not nil, is
// told about each variable used without a default that is not set.
func interpolateNode(n *yaml.Node, path string, lookup func(string) (string, bool), report, unset func(*yaml.Node, string, string)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			interpolateNode(c, path, lookup, report, unset)
		}
	case yaml.MappingNode:
		// Keys are names from the schema or user keys (env, labels), never interpolated.
		for i := 0; i+1 < len(n.Content); i += 2 {
			interpolateNode(n.Content[i+1], yamlnode.Join(path, n.Content[i].Value), lookup, report, unset)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			interpolateNode(c, fmt.Sprintf("%s[%d]", path, i), lookup, report, unset)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		in := interpolator{lookup: lookup}
		if unset != nil {
			in.unset = func(name string) { unset(n, path, name) }
		}
		v, err := in.expand(n.Value)
		if err != nil {
			report(n, path, err.Error())
			return
		}
		if v == n.Value {
			return
		}
		n.Value = v
		// As in compose, the value takes the type its text has: replicas:
		// ${REPLICAS} or "${REPLICAS}" must become an int again, not stay the
		// string the placeholder was. An explicit tag (!!str) wins, and a
		// quoted value never turns into null ("${MODE}" with MODE=null).
		if n.Style&yaml.TaggedStyle == 0 && (n.Style == 0 || (&yaml.Node{Kind: yaml.ScalarNode, Value: v}).ShortTag() != "!!null") {
			n.Tag = ""
			n.Style = 0
		}
	case yaml.AliasNode:
		// The anchored node is expanded where it is defined; expanding it again
		// here would turn an escaped "$$X" into the value of X.
	}
}

// interpolator expands variables from lookup, and tells unset (if set) about
// every variable used without a default that is not set.
type interpolator struct {
	lookup func(string) (string, bool)
	unset  func(name string)
}

// interpolate expands s with the variables lookup finds; see interpolator.expand.
func interpolate(s string, lookup func(string) (string, bool)) (string, error) {
	return interpolator{lookup: lookup}.expand(s)
}

// value looks a variable up for a plain $VAR or ${VAR}, which has no default.
func (in interpolator) value(name string) string {
	v, ok := in.lookup(name)
	if !ok && in.unset != nil {
		in.unset(name)
	}
	return v
}

// expand expands ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message},
// ${VAR?message}, ${VAR:+alternative}, ${VAR+alternative}, $VAR and $$ as docker
// compose does. Go template actions ({{ ... }}) are copied untouched so that
// {{ $x := .Ordinal }} survives. A '$' that starts none of these stays literal,
// and so does a reference to a name with the RuntimePrefix, in any of these
// forms: the container's shell expands it.
func (in interpolator) expand(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "{{") {
			if end := strings.Index(s[i+2:], "}}"); end >= 0 {
				b.WriteString(s[i : i+end+4])
				i += end + 4
				continue
			}
		}
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteByte('$')
			i += 2
		case next == '{':
			end := closingBrace(s, i+2)
			if end < 0 {
				return "", fmt.Errorf("invalid interpolation format in %q: missing '}'", s)
			}
			if isRuntimeName(s[i+2 : end]) {
				b.WriteString(s[i : end+1])
				i = end + 1
				continue
			}
			v, err := in.substitute(s[i+2 : end])
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = end + 1
		case isNameStart(next):
			j := i + 1
			for j < len(s) && isNameChar(s[j]) {
				j++
			}
			if name := s[i+1 : j]; isRuntimeName(name) {
				b.WriteString(s[i:j])
			} else {
				b.WriteString(in.value(name))
			}
			i = j
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), nil
}

// closingBrace returns the index of the '}' closing a "${" whose body starts at
// from, allowing nested ${...} in defaults.
func closingBrace(s string, from int) int {
	depth := 1
	for i := from; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			i++
		case strings.HasPrefix(s[i:], "${"):
			depth++
			i++
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isRuntimeName reports whether expr (a name, or the body of a ${...}) refers to
// a variable with the RuntimePrefix.
func isRuntimeName(expr string) bool {
	return strings.HasPrefix(expr, RuntimePrefix)
}

// substitute evaluates the body of one ${...}.
func (in interpolator) substitute(expr string) (string, error) {
	n := 0
	if n < len(expr) && isNameStart(expr[n]) {
		for n < len(expr) && isNameChar(expr[n]) {
			n++
		}
	}
	if n == 0 {
		return "", fmt.Errorf("invalid interpolation format: ${%s}", expr)
	}
	name, rest := expr[:n], expr[n:]
	if rest == "" {
		return in.value(name), nil
	}
	value, set := in.lookup(name)
	op := rest[:1]
	if op == ":" && len(rest) > 1 {
		op = rest[:2]
	}
	arg := rest[len(op):]
	var use bool
	switch op {
	case ":-":
		use = value == ""
	case "-":
		use = !set
	case ":+":
		use = value != ""
	case "+":
		use = set
	case ":?", "?":
		if (op == "?" && set) || (op == ":?" && value != "") {
			return value, nil
		}
		msg, err := in.expand(arg)
		if err != nil {
			return "", err
		}
		if msg == "" {
			return "", fmt.Errorf("required variable %s is missing a value", name)
		}
		return "", fmt.Errorf("required variable %s is missing a value: %s", name, msg)
	default:
		return "", fmt.Errorf("invalid interpolation format: ${%s}", expr)
	}
	switch {
	case use:
		return in.expand(arg)
	case op == ":+" || op == "+":
		return "", nil
	default:
		return value, nil
	}
}

func isNameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isNameChar(c byte) bool { return isNameStart(c) || '0' <= c && c <= '9' }
