package plan

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestReplicaIndex: the index answers every lookup as a map filled in order
// would (the later of two replicas at one ordinal wins), whatever the ordinals:
// inside the desired range or not, dense or scattered, negative, duplicated.
func TestReplicaIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.IntRange(-3, 5).Draw(t, "start")
		end := start + rapid.IntRange(0, 300).Draw(t, "replicas")
		// Mostly near the range, sometimes far from it, so that both the window
		// and the map (and a window too sparse to make) are exercised.
		ord := rapid.OneOf(rapid.IntRange(start-5, end+5), rapid.IntRange(-100000, 100000))
		ords := rapid.SliceOfN(ord, 0, 40).Draw(t, "ordinals")
		rs := make([]Replica, len(ords))
		want := map[int]int{}
		for i, o := range ords {
			rs[i] = Replica{ID: "id-" + strconv.Itoa(i), Ordinal: o}
			want[o] = i
		}
		x := newReplicaIndex(rs, start, end)
		probes := append(rapid.SliceOfN(ord, 0, 40).Draw(t, "probes"), ords...)
		for o := start - 1; o <= end; o++ {
			probes = append(probes, o)
		}
		for _, o := range probes {
			r, ok := x.get(o)
			i, wantOK := want[o]
			if ok != wantOK || x.has(o) != wantOK {
				t.Fatalf("ordinal %d: found %v, want %v", o, ok, wantOK)
			}
			if ok && r != &rs[i] {
				t.Fatalf("ordinal %d: got replica %s, want %s", o, r.ID, rs[i].ID)
			}
		}
		if len(x.slot) > 2*len(rs)+64 {
			t.Fatalf("window of %d slots for %d replicas", len(x.slot), len(rs))
		}
	})
}

// TestReplicaIndexWindow: a set's own replicas are found in the window, with no
// map; a condemned ordinal above the range goes in the map.
func TestReplicaIndexWindow(t *testing.T) {
	x := newReplicaIndex(append(okN(5, "b"), ok(7, "b")), 0, 5)
	if x.lo != 0 || len(x.slot) != 5 || len(x.rest) != 1 {
		t.Fatalf("window [%d, %d) and %d in the map, want [0, 5) and 1", x.lo, x.lo+len(x.slot), len(x.rest))
	}
	if r, ok := x.get(7); !ok || r.Name != "web-7" {
		t.Fatalf("ordinal 7 not found in the map")
	}
}
