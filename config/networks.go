package config

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config/ipam"
)

// NetworkAttachment is a network a set joins, written as its name or as
// {name, aliases, ...}: the aliases are DNS names every replica answers to on
// that network only. IPv4Address and IPv6Address are the fixed addresses of
// the one replica of a set of one; IPAM are the address pools ostset creates
// the network with when it is missing (a fixed address needs one).
type NetworkAttachment struct {
	Name        string     `yaml:"name" json:"name"`
	Aliases     []string   `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	IPv4Address string     `yaml:"ipv4Address,omitempty" json:"ipv4Address,omitempty"`
	IPv6Address string     `yaml:"ipv6Address,omitempty" json:"ipv6Address,omitempty"`
	IPAM        []IPAMPool `yaml:"ipam,omitempty" json:"ipam,omitempty"`
}

// IPAMPool is an address pool of a network ostset creates (see package ipam).
type IPAMPool = ipam.Pool

// Predefined network modes a set may name as its network: HostNetwork (the
// host's own network stack, for a set of one: its ports are the host's) and
// NoNetwork (a loopback interface only).
const (
	HostNetwork = "host"
	NoNetwork   = "none"
)

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
		if k := node.Content[i].Value; !slices.Contains([]string{"name", "aliases", "ipv4Address", "ipv6Address", "ipam"}, k) {
			return fmt.Errorf("unknown field %q (a network has name, aliases, ipv4Address, ipv6Address and ipam)", k)
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
		nets[i].IPAM = slices.Clone(nets[i].IPAM)
	}
	return nets
}

// hashNetworks is how Networks counts in the revision: not at all when it
// says no more than Network does, so that `networks: [front]` and `network:
// front` are the same revision, and a set file from before Networks keeps its hash.
func hashNetworks(nets []NetworkAttachment) []hashNetwork {
	if len(nets) == 1 && len(nets[0].Aliases) == 0 && nets[0].IPv4Address == "" && nets[0].IPv6Address == "" && len(nets[0].IPAM) == 0 {
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
		mode := n.Name == HostNetwork || n.Name == NoNetwork
		switch {
		case !dockerNameRe.MatchString(n.Name):
			v.add(p, "%q is not a valid Docker network name (letters, digits, '_', '.', '-')", n.Name)
		case mode && n.Name == s.Network && len(s.Networks) <= 1 && len(n.Aliases) == 0 && n.IPv4Address == "" && n.IPv6Address == "" && len(n.IPAM) == 0:
			if i > 0 {
				break // the same network as network: checked once
			}
			if n.Name == HostNetwork && *s.Replicas > 1 {
				v.add(p, "host networking takes one replica: %d replicas would share the host's ports", *s.Replicas)
			}
			for j, port := range s.Template.Ports {
				if port.HostPort != 0 {
					v.add(fmt.Sprintf("template.ports[%d].hostPort", j), "a replica on network %q publishes no port", n.Name)
				}
			}
		case n.Name == "bridge":
			// Only user-defined networks give replicas DNS names.
			v.add(p, "%q is a predefined Docker network; use a user-defined network such as %q", n.Name, DefaultNetwork)
		case mode && i == 0 && len(s.Networks) > 0 && s.Networks[0].Name == n.Name:
			// reported at networks[0]
		case mode:
			v.add(p, "%q is the container's network mode: it stands alone, with no other network, alias or address", n.Name)
		}
		v.addresses(p, n, *s.Replicas)
		for j, a := range n.Aliases {
			if !hostnameRe.MatchString(a) {
				v.add(fmt.Sprintf("%s.aliases[%d]", p, j), "%q is not a DNS name (letters, digits, '.', '_', '-')", a)
			}
		}
	}
}

// addresses checks a network's fixed addresses and address pools.
func (v *validator) addresses(p string, n NetworkAttachment, replicas int) {
	for _, pr := range ipam.Check(p, n.IPv4Address, n.IPv6Address, n.IPAM, replicas) {
		v.add(pr.Path, "%s", pr.Message)
	}
}
