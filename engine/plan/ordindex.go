package plan

// replicaIndex finds the observed replica of an ordinal. A pass looks every
// desired ordinal up several times, so the lookup is on the planner's hot path:
// ordinals in a dense window are found in a slice, with no hashing and no
// allocation per replica (a map of Replica values allocates one for each);
// any others, condemned ordinals say, are in a map. When two observed replicas
// claim one ordinal the later one wins, as it would in a map filled in order.
type replicaIndex struct {
	rs []Replica
	// lo is the first ordinal of the window; slot[ord-lo] is the index in rs of
	// ord's replica plus one, 0 for none.
	lo   int
	slot []int
	// rest holds the ordinals outside the window (nil when there are none).
	rest map[int]int
}

// newReplicaIndex indexes rs for lookups by ordinal. The window is the part of
// the desired range [start, end) that observed replicas occupy; a window far
// wider than the number of replicas (ordinals scattered over a huge range) is
// not made, and every ordinal goes in the map: memory stays proportional to
// len(rs) whatever the ordinals are.
func newReplicaIndex(rs []Replica, start, end int) replicaIndex {
	x := replicaIndex{rs: rs}
	lo, hi := end, start // the observed ordinals in [start, end): [lo, hi)
	for i := range rs {
		if o := rs[i].Ordinal; o >= start && o < end {
			lo, hi = min(lo, o), max(hi, o+1)
		}
	}
	if hi > lo && hi-lo <= 2*len(rs)+64 {
		x.lo, x.slot = lo, make([]int, hi-lo)
	}
	for i := range rs {
		o := rs[i].Ordinal
		if o >= x.lo && o < x.lo+len(x.slot) {
			x.slot[o-x.lo] = i + 1
			continue
		}
		if x.rest == nil {
			x.rest = map[int]int{}
		}
		x.rest[o] = i
	}
	return x
}

// get returns the observed replica of ord. The pointer is into the observed
// replicas, which the planner only reads.
func (x *replicaIndex) get(ord int) (*Replica, bool) {
	if ord >= x.lo && ord < x.lo+len(x.slot) {
		if i := x.slot[ord-x.lo]; i > 0 {
			return &x.rs[i-1], true
		}
		return nil, false
	}
	i, ok := x.rest[ord]
	if !ok {
		return nil, false
	}
	return &x.rs[i], true
}

// has reports whether ord has an observed replica.
func (x *replicaIndex) has(ord int) bool {
	_, ok := x.get(ord)
	return ok
}
