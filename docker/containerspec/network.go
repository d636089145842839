package containerspec

import (
	"fmt"
	"net/netip"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// NetworkMode creates the container in the network mode its spec names
// (plan.NetworkMode: host or none), with no endpoint: it has no DNS name and
// no fixed address there.
func NetworkMode(opts *client.ContainerCreateOptions, mode string) {
	opts.HostConfig.NetworkMode = container.NetworkMode(mode)
	opts.NetworkingConfig = nil
}

// Endpoint is the endpoint of a container on a network: its aliases and
// fixed addresses ("" for none).
func Endpoint(aliases []string, ipv4, ipv6 string) (*network.EndpointSettings, error) {
	e := &network.EndpointSettings{Aliases: aliases}
	if ipv4 == "" && ipv6 == "" {
		return e, nil
	}
	e.IPAMConfig = &network.EndpointIPAMConfig{}
	for _, a := range []struct {
		s  string
		to *netip.Addr
	}{{ipv4, &e.IPAMConfig.IPv4Address}, {ipv6, &e.IPAMConfig.IPv6Address}} {
		if a.s == "" {
			continue
		}
		ip, err := netip.ParseAddr(a.s)
		if err != nil {
			return nil, fmt.Errorf("fixed address %q: %w", a.s, err)
		}
		*a.to = ip
	}
	return e, nil
}

// IPAM is the address management a network is created with from its
// plan.LabelIPAM (nil: the engine's default pools), and whether it needs IPv6.
func IPAM(label string) (*network.IPAM, bool, error) {
	pools, err := plan.ParseIPAM(label)
	if err != nil || len(pools) == 0 {
		return nil, false, err
	}
	out, v6 := &network.IPAM{Driver: "default"}, false
	for _, p := range pools {
		var c network.IPAMConfig
		if c.Subnet, err = netip.ParsePrefix(p.Subnet); err != nil {
			return nil, false, fmt.Errorf("subnet %q: %w", p.Subnet, err)
		}
		if p.IPRange != "" {
			if c.IPRange, err = netip.ParsePrefix(p.IPRange); err != nil {
				return nil, false, fmt.Errorf("ipRange %q: %w", p.IPRange, err)
			}
		}
		if p.Gateway != "" {
			if c.Gateway, err = netip.ParseAddr(p.Gateway); err != nil {
				return nil, false, fmt.Errorf("gateway %q: %w", p.Gateway, err)
			}
		}
		v6 = v6 || c.Subnet.Addr().Is6()
		out.Config = append(out.Config, c)
	}
	return out, v6, nil
}
