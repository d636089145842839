package config

import (
	"slices"
	"strings"
	"testing"
)

func TestNetworksParse(t *testing.T) {
	sets, err := Parse("set.yaml", []byte(`name: db
networks:
  - front
  - name: back
    aliases: [store, store.internal]
template: {image: redis:7}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	if s.Network != "front" {
		t.Errorf("network = %q, want front (the first of networks)", s.Network)
	}
	if got := s.NetworkNames(); !slices.Equal(got, []string{"front", "back"}) {
		t.Errorf("NetworkNames = %v", got)
	}
	if got := s.Networks[1].Aliases; !slices.Equal(got, []string{"store", "store.internal"}) {
		t.Errorf("aliases of back = %v", got)
	}
}

func TestNetworksInvalid(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"networks: [{name: back, alias: [x]}]", `set.yaml:3: networks[0]: unknown field "alias"`},
		{"network: a\nnetworks: [b]", `network: "a" is not the first of networks ("b")`},
		{"networks: [a, b, a]", `networks[2]: "a" is listed twice`},
		{"networks: [a, host]", `networks[1]: "host" is the container's network mode`},
		{"networks: [{name: a, aliases: ['x y']}]", `networks[0].aliases[0]: "x y" is not a DNS name`},
	} {
		_, err := Parse("set.yaml", []byte("name: db\ntemplate: {image: redis:7}\n"+tc.doc+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.doc, err, tc.want)
		}
	}
}

// A set file written before networks hashes as it did; one network given as
// networks is the same revision as network; a second network, or an alias,
// is a new revision.
func TestNetworksHash(t *testing.T) {
	hash := func(edit func(*Set)) string {
		s := validSet()
		edit(&s)
		return s.RevisionSpec(testImageID).Hash()
	}
	old := hash(func(s *Set) { s.Network = "front" })
	if got := hash(func(s *Set) { s.Networks = []NetworkAttachment{{Name: "front"}} }); got != old {
		t.Errorf("networks: [front] hashes %s, network: front %s", got, old)
	}
	two := hash(func(s *Set) { s.Networks = []NetworkAttachment{{Name: "front"}, {Name: "back"}} })
	alias := hash(func(s *Set) { s.Networks = []NetworkAttachment{{Name: "front", Aliases: []string{"x"}}} })
	if two == old || alias == old || two == alias {
		t.Errorf("hashes: one network %s, two %s, one with an alias %s: want all different", old, two, alias)
	}
}
