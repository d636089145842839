package config

import (
	"fmt"
	"strings"

	"github.com/ostset/ostset/config/interp"
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
		in := interpolator(lookup)
		if unset != nil {
			in.Unset = func(name string) { unset(n, path, name) }
		}
		v, err := in.Expand(n.Value)
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

// interpolator expands with lookup, leaving the names with the
// RuntimePrefix to the container.
func interpolator(lookup func(string) (string, bool)) interp.Expander {
	return interp.Expander{Lookup: lookup, Keep: func(name string) bool { return strings.HasPrefix(name, RuntimePrefix) }}
}

// interpolate expands s with the variables lookup finds; see interp.Expander.
func interpolate(s string, lookup func(string) (string, bool)) (string, error) {
	return interpolator(lookup).Expand(s)
}
