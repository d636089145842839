// Package ipam holds the address pools of a network ostset creates and the
// fixed addresses of a replica on it, and checks them. It imports nothing of
// ostset.
package ipam

import (
	"fmt"
	"net/netip"
	"slices"
)

// Pool is an address pool of a network ostset creates: its subnet, the
// range the engine gives addresses from, and the gateway.
type Pool struct {
	Subnet  string `yaml:"subnet" json:"subnet"`
	IPRange string `yaml:"ipRange,omitempty" json:"ipRange,omitempty"`
	Gateway string `yaml:"gateway,omitempty" json:"gateway,omitempty"`
}

// Problem is what is wrong with a field, by its path.
type Problem struct{ Path, Message string }

// Check reports what is wrong with the pools of a network (at path.ipam) and
// the fixed addresses of a set's replicas on it (path.ipv4Address,
// path.ipv6Address): an address that does not parse, is in no subnet of the
// pools, or would be given to several replicas.
func Check(path, ipv4, ipv6 string, pools []Pool, replicas int) []Problem {
	var out []Problem
	add := func(p, format string, args ...any) { out = append(out, Problem{p, fmt.Sprintf(format, args...)}) }
	var subnets []netip.Prefix
	for j, pool := range pools {
		q := fmt.Sprintf("%s.ipam[%d]", path, j)
		sub, err := netip.ParsePrefix(pool.Subnet)
		if err != nil {
			add(q+".subnet", "%q is not a subnet (CIDR): %v", pool.Subnet, err)
			continue
		}
		subnets = append(subnets, sub)
		if r, err := netip.ParsePrefix(pool.IPRange); pool.IPRange != "" && (err != nil || !sub.Contains(r.Addr()) || r.Bits() < sub.Bits()) {
			add(q+".ipRange", "%q is not a range (CIDR) inside %s", pool.IPRange, pool.Subnet)
		}
		if g, err := netip.ParseAddr(pool.Gateway); pool.Gateway != "" && (err != nil || !sub.Contains(g)) {
			add(q+".gateway", "%q is not an address in %s", pool.Gateway, pool.Subnet)
		}
	}
	for _, a := range []struct{ field, value, version string }{{"ipv4Address", ipv4, "4"}, {"ipv6Address", ipv6, "6"}} {
		if a.value == "" {
			continue
		}
		q := path + "." + a.field
		ip, err := netip.ParseAddr(a.value)
		switch {
		case err != nil || ip.Is4() != (a.version == "4"):
			add(q, "%q is not an IPv%s address", a.value, a.version)
		case replicas > 1:
			add(q, "a fixed address names one container: the set has %d replicas", replicas)
		case len(subnets) > 0 && !slices.ContainsFunc(subnets, func(s netip.Prefix) bool { return s.Contains(ip) }):
			add(q, "%s is in no subnet of ipam", a.value)
		}
	}
	return out
}
