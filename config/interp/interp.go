// Package interp expands environment variables in a string as docker compose
// does ($VAR, ${VAR:-default}, $$ and the rest), for the set file's
// interpolation. It knows nothing of the set model.
package interp

import (
	"fmt"
	"strings"
)

// Expander expands variables from Lookup, and tells Unset (if set) about
// every variable used without a default that is not set.
type Expander struct {
	Lookup func(string) (string, bool)
	Unset  func(name string)
	// Keep says which names are left as written ($NAME, ${NAME...}): the
	// container's, not the expander's (nil: none).
	Keep func(name string) bool
}

// value looks a variable up for a plain $VAR or ${VAR}, which has no default.
func (in Expander) value(name string) string {
	v, ok := in.Lookup(name)
	if !ok && in.Unset != nil {
		in.Unset(name)
	}
	return v
}

// Expand expands ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message},
// ${VAR?message}, ${VAR:+alternative}, ${VAR+alternative}, $VAR and $$ as docker
// compose does. Go template actions ({{ ... }}) are copied untouched so that
// {{ $x := .Ordinal }} survives. A '$' that starts none of these stays literal,
// and so does a reference to a name Keep keeps, in any of these forms: the
// container's shell expands it.
func (in Expander) Expand(s string) (string, error) {
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
			if in.kept(s[i+2 : end]) {
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
			if name := s[i+1 : j]; in.kept(name) {
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

// kept reports whether expr (a name, or the body of a ${...}) refers to a
// variable Keep keeps.
func (in Expander) kept(expr string) bool {
	n := 0
	for n < len(expr) && isNameChar(expr[n]) {
		n++
	}
	return in.Keep != nil && n > 0 && in.Keep(expr[:n])
}

// substitute evaluates the body of one ${...}.
func (in Expander) substitute(expr string) (string, error) {
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
	value, set := in.Lookup(name)
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
		msg, err := in.Expand(arg)
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
		return in.Expand(arg)
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
