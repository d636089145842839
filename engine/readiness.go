package engine

import "time"

// rememberReadiness replaces each ready replica's ReadySince by the earliest time
// remembered for its container while it stayed ready, remembers new ones, and
// forgets containers that are gone or no longer ready.
func (st *State) rememberReadiness(rs []Replica) {
	ready := make(map[string]bool, len(rs))
	for i := range rs {
		r := &rs[i]
		if r.ReadySince.IsZero() {
			continue
		}
		ready[r.ID] = true
		if t, ok := st.ReadySince[r.ID]; ok && !r.ReadySince.Before(t) {
			r.ReadySince = t
			continue
		}
		if st.ReadySince == nil {
			st.ReadySince = map[string]time.Time{}
		}
		st.ReadySince[r.ID] = r.ReadySince
	}
	for id := range st.ReadySince {
		if !ready[id] {
			delete(st.ReadySince, id)
		}
	}
	if len(st.ReadySince) == 0 {
		st.ReadySince = nil
	}
}
