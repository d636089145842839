package plan

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/ostset/ostset/config"
)

// Labels of what a container or network is made with beyond the create call's
// own fields, for whoever acts on it later without the revision.
const (
	// LabelIPAM on a network ostset creates holds its address pools (JSON of
	// []config.IPAMPool): a fixed address needs a network with a subnet.
	LabelIPAM = "io.ostset.ipam"
	// LabelHooks on a replica holds its lifecycle hooks (JSON of
	// config.Lifecycle): the stop of a replica runs the preStop hooks it was
	// created with, as a pod's own spec says, whatever the set says now.
	LabelHooks = "io.ostset.hooks"
)

// NetworkMode says whether a set's network is a network mode of the
// container (config.HostNetwork, config.NoNetwork) rather than a network to
// join: the container is created in that mode, with no endpoint, no DNS name
// and no fixed address.
func NetworkMode(network string) bool {
	return network == config.HostNetwork || network == config.NoNetwork
}

// NetworkCreateLabels are the labels a network of nets called name is
// created with: labels, and its address pools (LabelIPAM) if it has any.
func NetworkCreateLabels(labels map[string]string, nets []config.NetworkAttachment, name string) map[string]string {
	for _, n := range nets {
		if n.Name == name && len(n.IPAM) > 0 {
			out := maps.Clone(labels)
			if out == nil {
				out = map[string]string{}
			}
			b, _ := json.Marshal(n.IPAM) // plain strings
			out[LabelIPAM] = string(b)
			return out
		}
	}
	return labels
}

// ParseIPAM reads a LabelIPAM value.
func ParseIPAM(label string) ([]config.IPAMPool, error) {
	var pools []config.IPAMPool
	if label == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(label), &pools); err != nil {
		return nil, fmt.Errorf("label %s: %w", LabelIPAM, err)
	}
	return pools, nil
}

// HooksLabel is the LabelHooks value of a lifecycle, "" without hooks.
func HooksLabel(l *config.Lifecycle) string {
	if l == nil || len(l.PostStart) == 0 && len(l.PreStop) == 0 {
		return ""
	}
	b, _ := json.Marshal(l) // plain strings and maps
	return string(b)
}

// ParseHooks reads a LabelHooks value; "" is no hooks.
func ParseHooks(label string) (config.Lifecycle, error) {
	var l config.Lifecycle
	if label == "" {
		return l, nil
	}
	if err := json.Unmarshal([]byte(label), &l); err != nil {
		return l, fmt.Errorf("label %s: %w", LabelHooks, err)
	}
	return l, nil
}

// addresses gives a replica its fixed addresses and each network's pools
// (the first network's in r, the others' in r.OtherNetworks), and leaves a
// replica in a network mode without DNS names: it has no endpoint.
func addresses(r *ReplicaSpec, spec config.RevisionSpec) {
	if NetworkMode(r.Network) {
		r.Aliases, r.OtherNetworks, r.Domainname = nil, nil, ""
		return
	}
	for _, n := range spec.Networks {
		ipam := NetworkCreateLabels(nil, spec.Networks, n.Name)[LabelIPAM]
		if n.Name == r.Network {
			r.IPv4Address, r.IPv6Address, r.IPAM = n.IPv4Address, n.IPv6Address, ipam
			continue
		}
		for i := range r.OtherNetworks {
			if r.OtherNetworks[i].Name == n.Name {
				r.OtherNetworks[i].IPv4Address, r.OtherNetworks[i].IPv6Address, r.OtherNetworks[i].IPAM = n.IPv4Address, n.IPv6Address, ipam
			}
		}
	}
}

// PreStopError is what removing a replica whose pre_stop hook failed returns
// once it is removed nonetheless, as the kubelet stops a container whose
// preStop hook failed: the failure is news, not a reason to keep it.
type PreStopError struct{ Err error }

func (e *PreStopError) Error() string { return e.Err.Error() }
func (e *PreStopError) Unwrap() error { return e.Err }
