package docker

import (
	"net/netip"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/docker/containerspec"
	"github.com/ostset/ostset/engine/plan"
)

// A replica in a network mode has no endpoint; one with fixed addresses asks
// for them on its endpoint; a network with pools is created with them; the
// hooks a replica is created with are on it for its stop.
func TestCreateOptionsNetworkAndHooks(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "web", Name: "web-0", Revision: "web-9f", Image: "sha256:x", Network: "host",
		Hooks: config.Lifecycle{PreStop: []config.Hook{{Command: []string{"sh", "-c", "echo bye"}, User: "root"}}}}
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	containerspec.NetworkMode(&opts, spec.Network)
	if opts.HostConfig.NetworkMode != "host" || opts.NetworkingConfig != nil {
		t.Errorf("network mode %q, networking %+v", opts.HostConfig.NetworkMode, opts.NetworkingConfig)
	}
	hooks, err := plan.ParseHooks(opts.Config.Labels[plan.LabelHooks])
	if err != nil || len(hooks.PreStop) != 1 || hooks.PreStop[0].User != "root" || hooks.PreStop[0].Command[2] != "echo bye" {
		t.Errorf("hooks label %q: %+v, %v", opts.Config.Labels[plan.LabelHooks], hooks, err)
	}
	if opts, _ := createOptions(plan.ReplicaSpec{Set: "web", Name: "web-0", Revision: "web-9f", Image: "sha256:x"}); opts.Config.Labels[plan.LabelHooks] != "" {
		t.Errorf("a replica without hooks has the label %q", opts.Config.Labels[plan.LabelHooks])
	}

	ep, err := containerspec.Endpoint([]string{"dns"}, "172.20.0.2", "fd00::2")
	if err != nil || ep.IPAMConfig.IPv4Address != netip.MustParseAddr("172.20.0.2") || ep.IPAMConfig.IPv6Address != netip.MustParseAddr("fd00::2") {
		t.Errorf("endpoint %+v, %v", ep, err)
	}
	if _, err := containerspec.Endpoint(nil, "172.20.0", ""); err == nil {
		t.Error("a bad address passed")
	}

	label := plan.NetworkCreateLabels(nil, []config.NetworkAttachment{{Name: "dns", IPAM: []config.IPAMPool{{Subnet: "172.20.0.0/24", Gateway: "172.20.0.1"}, {Subnet: "fd00::/64"}}}}, "dns")[plan.LabelIPAM]
	ipam, v6, err := containerspec.IPAM(label)
	if err != nil || !v6 || len(ipam.Config) != 2 || ipam.Config[0].Subnet != netip.MustParsePrefix("172.20.0.0/24") || ipam.Config[0].Gateway != netip.MustParseAddr("172.20.0.1") {
		t.Errorf("ipam of %q: %+v, v6 %v, %v", label, ipam, v6, err)
	}
	if ipam, _, err := containerspec.IPAM(""); ipam != nil || err != nil {
		t.Errorf("no pools: %+v, %v", ipam, err)
	}
}
