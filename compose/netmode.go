package compose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/ostset/ostset/config"
)

// networkMode maps network_mode, and reports whether the service has one
// (then it joins no network). host is the host's network stack for one
// replica: more would share the host's ports. none is a loopback interface
// only. A replica in another container's network namespace (service:X,
// container:X) is refused: X's replicas are replaced by rolling updates, and
// the namespace goes with the container.
func (m *mapper) networkMode() bool {
	mode := m.svc.NetworkMode
	switch {
	case mode == "":
		return false
	case mode == config.HostNetwork && *m.set.Replicas > 1:
		m.unmap(fmt.Sprintf("host networking takes one replica: %d replicas would share the host's ports", *m.set.Replicas), "network_mode")
		return false
	case mode == config.HostNetwork || mode == config.NoNetwork:
		m.set.Network = mode
		for i, p := range m.set.Template.Ports {
			if p.HostPort != 0 {
				m.warn("ports: network_mode %s: the replica publishes no port (%d): it listens on the host's own ports", mode, p.ContainerPort)
				m.set.Template.Ports[i].HostPort, m.set.Template.Ports[i].HostIP = 0, ""
			}
		}
		return true
	case strings.HasPrefix(mode, "service:"), strings.HasPrefix(mode, "container:"):
		m.unmap(fmt.Sprintf("network_mode %q: a replica has a network namespace of its own; another container's goes with that container when it is replaced (join its network instead, and reach it by name)", mode), "network_mode")
	default:
		m.unmap(fmt.Sprintf("network_mode %q: a set's replicas are on a user-defined network of their own, with their DNS names (host and none are applied)", mode), "network_mode")
	}
	return false
}

// fixedAddress maps ipv4_address or ipv6_address (field) on the network key
// onto n, for a one-replica service: a fixed address names one container.
func (m *mapper) fixedAddress(n *config.NetworkAttachment, field, addr, key string) {
	if *m.set.Replicas > 1 {
		m.unmap(fmt.Sprintf("a fixed address names one container: the service has %d replicas", *m.set.Replicas), "networks", key, field)
		return
	}
	if pn := m.p.Networks[key]; len(n.IPAM) == 0 && !bool(pn.External) {
		m.unmap("a fixed address needs a subnet: the network has no ipam.config (the engine refuses it on a network without one)", "networks", key, field)
		return
	}
	if field == "ipv4_address" {
		n.IPv4Address = addr
	} else {
		n.IPv6Address = addr
	}
}

// pools are a network's ipam.config: the pools ostset creates it with.
func pools(c types.IPAMConfig) []config.IPAMPool {
	var out []config.IPAMPool
	for _, p := range c.Config {
		if p != nil && p.Subnet != "" {
			out = append(out, config.IPAMPool{Subnet: p.Subnet, IPRange: p.IPRange, Gateway: p.Gateway})
		}
	}
	return out
}

// hooks maps post_start and pre_stop onto the template's lifecycle: commands
// run in the replica after its start and before its stop, with their user,
// privileges, working directory and environment.
func (m *mapper) hooks() {
	var l config.Lifecycle
	for _, list := range []struct {
		field string
		from  []types.ServiceHook
		to    *[]config.Hook
	}{{"post_start", m.svc.PostStart, &l.PostStart}, {"pre_stop", m.svc.PreStop, &l.PreStop}} {
		for i, h := range list.from {
			hook := config.Hook{Command: []string(h.Command), User: h.User, Privileged: h.Privileged, WorkingDir: h.WorkingDir}
			for k, v := range h.Environment {
				if v != nil {
					if hook.Env == nil {
						hook.Env = map[string]string{}
					}
					hook.Env[k] = *v
				}
			}
			if len(hook.Command) == 0 {
				m.unmap("a hook without a command", list.field, strconv.Itoa(i))
				continue
			}
			*list.to = append(*list.to, hook)
		}
	}
	if !l.Empty() {
		m.set.Template.Lifecycle = &l
	}
}
