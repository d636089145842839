package plan

import (
	"reflect"
	"testing"

	"github.com/ostset/ostset/config"
)

// A replica on the host network has no endpoint, so no DNS names.
func TestRenderNetworkMode(t *testing.T) {
	s := config.Set{Name: "plex", Network: "host", Template: config.Template{Image: "plex"}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	r, err := Render(s, config.RevisionName(s.Name, spec.Hash()), spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Network != "host" || r.Aliases != nil || r.OtherNetworks != nil || r.Domainname != "" {
		t.Errorf("network %q, aliases %q, others %+v, domain %q", r.Network, r.Aliases, r.OtherNetworks, r.Domainname)
	}
}

// A replica gets its fixed address on each network, and each network's
// pools for its create; its init containers get the pools, not the address.
// Its hooks are expanded per replica, the revision left as it was.
func TestRenderAddressesAndHooks(t *testing.T) {
	pools := []config.IPAMPool{{Subnet: "172.20.0.0/24"}}
	s := config.Set{Name: "dns", Networks: []config.NetworkAttachment{
		{Name: "front", IPv4Address: "172.20.0.2", IPAM: pools}, {Name: "back", IPv6Address: "fd00::5"},
	}, Template: config.Template{Image: "dns", InitContainers: []config.InitContainer{{Name: "prep", Image: "dns"}},
		Lifecycle: &config.Lifecycle{PreStop: []config.Hook{{Command: []string{"drain", "{{.Name}}"}, User: "root"}}}}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	rev := config.RevisionName(s.Name, spec.Hash())
	r, err := Render(s, rev, spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	ipam := `[{"subnet":"172.20.0.0/24"}]`
	if r.IPv4Address != "172.20.0.2" || r.IPv6Address != "" || r.IPAM != ipam {
		t.Errorf("front: %q %q %q", r.IPv4Address, r.IPv6Address, r.IPAM)
	}
	if got := r.OtherNetworks[0]; got.Name != "back" || got.IPv6Address != "fd00::5" || got.IPAM != "" {
		t.Errorf("back: %+v", got)
	}
	if want := []config.Hook{{Command: []string{"drain", "dns-0"}, User: "root"}}; !reflect.DeepEqual(r.Hooks.PreStop, want) {
		t.Errorf("hooks %+v, want %+v", r.Hooks.PreStop, want)
	}
	if spec.Template.Lifecycle.PreStop[0].Command[1] != "{{.Name}}" {
		t.Errorf("rendering changed the revision: %q", spec.Template.Lifecycle.PreStop[0].Command)
	}
	init, err := RenderInit(s, rev, spec, 0, "prep")
	if err != nil {
		t.Fatal(err)
	}
	if init.IPv4Address != "" || init.IPAM != ipam || init.OtherNetworks[0].IPv6Address != "" || len(init.Hooks.PreStop) != 0 {
		t.Errorf("init container: %+v", init)
	}
	labels := NetworkCreateLabels(map[string]string{"p": "x"}, spec.Networks, "front")
	if got, err := ParseIPAM(labels[LabelIPAM]); err != nil || !reflect.DeepEqual(got, pools) || labels["p"] != "x" {
		t.Errorf("network labels %v: %+v, %v", labels, got, err)
	}
	if l := NetworkCreateLabels(map[string]string{"p": "x"}, spec.Networks, "back"); len(l) != 1 {
		t.Errorf("a network without pools: %v", l)
	}
}
