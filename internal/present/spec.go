package present

import (
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// PrintSpec writes the set's spec as describe shows it (DescribedSpec), as
// YAML without the fields that have no value, each line indented.
func PrintSpec(w io.Writer, indent string, s config.Set) error {
	var node yaml.Node
	if err := node.Encode(DescribedSpec(s)); err != nil {
		return err
	}
	dropEmpty(&node)
	spec, err := yaml.Marshal(&node)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimRight(string(spec), "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
	return nil
}

// dropEmpty leaves out of a YAML mapping the fields without a value: "",
// null, [] and {}, and a mapping that has nothing left. Zeros and false stay:
// they are values.
func dropEmpty(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !dropEmpty(n.Content[i+1]) {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
		return len(kept) == 0
	case yaml.SequenceNode:
		for _, c := range n.Content {
			dropEmpty(c)
		}
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Tag == "!!null" || (n.Tag == "!!str" && n.Value == "")
	case yaml.DocumentNode:
		for _, c := range n.Content {
			dropEmpty(c)
		}
	}
	return false
}
