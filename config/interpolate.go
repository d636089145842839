package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// interpolateNode expands environment variables in every scalar value under n.
// Working on parsed values rather than on the raw text is what docker compose
// does: a value containing quotes, '#' or ": " cannot change the YAML structure,
// comments are left alone, and every node keeps its line.
func interpolateNode(n *yaml.Node, path string, lookup func(string) (string, bool), report func(*yaml.Node, string, string)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			interpolateNode(c, path, lookup, report)
		}
	case yaml.MappingNode:
		// Keys are names from the schema or user keys (env, labels), never interpolated.
		for i := 0; i+1 < len(n.Content); i += 2 {
			interpolateNode(n.Content[i+1], joinPath(path, n.Content[i].Value), lookup, report)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			interpolateNode(c, fmt.Sprintf("%s[%d]", path, i), lookup, report)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		v, err := interpolate(n.Value, lookup)
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

// interpolate expands ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message},
// ${VAR?message}, ${VAR:+alternative}, ${VAR+alternative}, $VAR and $$ as docker
// compose does. Go template actions ({{ ... }}) are copied untouched so that
// {{ $x := .Ordinal }} survives. A '$' that starts none of these stays literal.
func interpolate(s string, lookup func(string) (string, bool)) (string, error) {
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
			v, err := substitute(s[i+2:end], lookup)
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
			v, _ := lookup(s[i+1 : j])
			b.WriteString(v)
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

// substitute evaluates the body of one ${...}.
func substitute(expr string, lookup func(string) (string, bool)) (string, error) {
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
	value, set := lookup(name)
	if rest == "" {
		return value, nil
	}
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
		msg, err := interpolate(arg, lookup)
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
		return interpolate(arg, lookup)
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
