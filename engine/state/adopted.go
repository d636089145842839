package state

import (
	"slices"

	"github.com/ostset/ostset/engine/plan"
)

// AdoptOwners adds owners to the set's adopted owners; it returns those that
// were not adopted before.
func (st *State) AdoptOwners(owners []plan.Owner) []plan.Owner {
	var added []plan.Owner
	for _, o := range owners {
		if o.ID != "" && !slices.ContainsFunc(st.AdoptedOwners, func(a plan.Owner) bool { return a.ID == o.ID }) {
			st.AdoptedOwners = append(st.AdoptedOwners, o)
			added = append(added, o)
		}
	}
	return added
}
