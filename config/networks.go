package config

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// NetworkAttachment is a network a set joins, written as its name or as
// {name, aliases}: the aliases are DNS names every replica answers to on that
// network only.
type NetworkAttachment struct {
	Name    string   `yaml:"name" json:"name"`
	Aliases []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
}

// UnmarshalYAML takes "front" or {name: front, aliases: [...]}, refusing
// other keys.
func (n *NetworkAttachment) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		n.Name = node.Value
		return nil
	}
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("expected a network name or a mapping with name and aliases")
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		if k := node.Content[i].Value; k != "name" && k != "aliases" {
			return fmt.Errorf("unknown field %q (a network has name and aliases)", k)
		}
	}
	type plain NetworkAttachment
	return node.Decode((*plain)(n))
}

// NetworkNames are the networks the replicas join: Network, then the others
// of Networks.
func (s Set) NetworkNames() []string { return networkNames(s.Network, s.Networks) }

// NetworkNames are the networks a revision's replicas join (see Set.NetworkNames).
func (r RevisionSpec) NetworkNames() []string { return networkNames(r.Network, r.Networks) }

func networkNames(first string, all []NetworkAttachment) []string {
	out := []string{first}
	for _, n := range all {
		if !slices.Contains(out, n.Name) {
			out = append(out, n.Name)
		}
	}
	return out
}

func cloneNetworks(nets []NetworkAttachment) []NetworkAttachment {
	nets = slices.Clone(nets)
	for i := range nets {
		nets[i].Aliases = slices.Clone(nets[i].Aliases)
	}
	return nets
}

// hashNetworks is how Networks counts in the revision: not at all when it
// says no more than Network does, so that `networks: [front]` and `network:
// front` are the same revision, and a set file from before Networks keeps its hash.
func hashNetworks(nets []NetworkAttachment) []hashNetwork {
	if len(nets) == 1 && len(nets[0].Aliases) == 0 {
		return nil
	}
	out := make([]hashNetwork, len(nets))
	for i, n := range nets {
		out[i] = hashNetwork(n)
	}
	return out
}

// networks checks the network names and aliases.
func (v *validator) networks(s Set) {
	if len(s.Networks) > 0 && s.Networks[0].Name != "" && s.Networks[0].Name != s.Network {
		v.add("network", "%q is not the first of networks (%q): give one or the other", s.Network, s.Networks[0].Name)
	}
	for i, n := range append([]NetworkAttachment{{Name: s.Network}}, s.Networks...) {
		p := "network"
		if i > 0 {
			p = fmt.Sprintf("networks[%d]", i-1)
			if i > 1 && slices.ContainsFunc(s.Networks[:i-1], func(o NetworkAttachment) bool { return o.Name == n.Name }) {
				v.add(p, "%q is listed twice", n.Name)
			}
		}
		switch {
		case !dockerNameRe.MatchString(n.Name):
			v.add(p, "%q is not a valid Docker network name (letters, digits, '_', '.', '-')", n.Name)
		case n.Name == "bridge" || n.Name == "host" || n.Name == "none":
			// Only user-defined networks give replicas DNS names.
			v.add(p, "%q is a predefined Docker network; use a user-defined network such as %q", n.Name, DefaultNetwork)
		}
		for j, a := range n.Aliases {
			if !hostnameRe.MatchString(a) {
				v.add(fmt.Sprintf("%s.aliases[%d]", p, j), "%q is not a DNS name (letters, digits, '.', '_', '-')", a)
			}
		}
	}
}
