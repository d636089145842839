// Package kuberefs writes what ostset expands per replica ({{.Ordinal}},
// {{.Name}}...) as a pod says it: references to the variables ostset sets in
// every replica ($(OSTSET_ORDINAL) in command, args and env values,
// ${OSTSET_ORDINAL} in a probe's shell), with the $ Kubernetes would expand
// escaped. Pure: strings in, strings out.
package kuberefs

import (
	"strings"
	"text/template/parse"

	"github.com/ostset/ostset/config"
)

// The variables ostset sets in every replica, and how a Kubernetes pod of an
// exported StatefulSet gets them. An exported container defines them first,
// so that its other variables, command and args can refer to them as $(VAR).
const (
	PodIndexLabel = "apps.kubernetes.io/pod-index" // the ordinal, as Kubernetes labels each pod
	EnvSet        = config.RuntimePrefix + "SET"
	EnvOrdinal    = config.RuntimePrefix + "ORDINAL"
	EnvName       = config.RuntimePrefix + "NAME"
	EnvService    = config.RuntimePrefix + "SERVICE"
)

// runtimeVars maps the template fields that a replica keeps for its whole
// life, and that a pod can read, to the variables that hold them.
var runtimeVars = map[string]string{
	"Set":     EnvSet,
	"Ordinal": EnvOrdinal,
	"Name":    EnvName,
	"Service": EnvService,
}

// Style is how a place in a manifest refers to a variable.
type Style int

const (
	// KubeRefs: command, args and env values, where Kubernetes replaces
	// $(VAR) and turns $$ into $.
	KubeRefs Style = iota
	// ShellRefs: a probe's "sh -c" script, where the shell replaces ${VAR}.
	ShellRefs
	// NoRefs: a field Kubernetes takes as written (workingDir, labels, paths).
	NoRefs
)

// Translate writes s, a string ostset expands per replica, for a
// place of the given style in a pod spec. ok is false when s cannot be said
// there: a template other than {{.Set}}, {{.Ordinal}}, {{.Name}} and
// {{.Service}} (conditions, ranges, .Replicas, .Peers), or any template in a
// place Kubernetes takes as written; s is then returned unchanged.
func Translate(s string, style Style) (out string, ok bool) {
	if !strings.Contains(s, "{{") {
		if style == KubeRefs {
			return Escape(s), true
		}
		return s, true
	}
	trees, err := parse.Parse("t", s, "{{", "}}")
	if err != nil || trees["t"] == nil || len(trees) != 1 || style == NoRefs {
		return s, false
	}
	var b strings.Builder
	for _, n := range trees["t"].Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			if style == KubeRefs {
				b.WriteString(Escape(string(n.Text)))
			} else {
				b.Write(n.Text)
			}
		case *parse.ActionNode:
			name, isVar := runtimeVar(n)
			if !isVar {
				return s, false
			}
			if style == KubeRefs {
				b.WriteString("$(" + name + ")")
			} else {
				b.WriteString("${" + name + "}")
			}
		default:
			return s, false
		}
	}
	return b.String(), true
}

// runtimeVar says which variable an action such as {{.Ordinal}} reads, if it
// does nothing else.
func runtimeVar(a *parse.ActionNode) (string, bool) {
	if a.Pipe == nil || len(a.Pipe.Decl) > 0 || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) != 1 {
		return "", false
	}
	f, isField := a.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
	if !isField || len(f.Ident) != 1 {
		return "", false
	}
	name, known := runtimeVars[f.Ident[0]]
	return name, known
}

// SingleRef says which template field s is when it is exactly one action
// such as {{.Ordinal}} and nothing else.
func SingleRef(s string) string {
	trees, err := parse.Parse("t", s, "{{", "}}")
	if err != nil || trees["t"] == nil || len(trees["t"].Root.Nodes) != 1 {
		return ""
	}
	a, isAction := trees["t"].Root.Nodes[0].(*parse.ActionNode)
	if !isAction {
		return ""
	}
	name, _ := runtimeVar(a)
	return name
}

// Escape writes s so that Kubernetes' expansion of $(VAR) and $$
// gives s back: a $ before another $ or before ( is doubled.
func Escape(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '$' && i+1 < len(s) && (s[i+1] == '$' || s[i+1] == '(') {
			b.WriteByte('$')
		}
	}
	return b.String()
}
