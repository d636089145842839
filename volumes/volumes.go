// Package volumes holds the rules for per-ordinal volumes: their names, when
// the retention policy lets one go, the record of their last use, and when a
// reused volume is news. It imports none of the engine.
package volumes

import "strconv"

// Name is the per-ordinal volume of a claim: <claim>-<set>-<ordinal>.
func Name(claim, set string, ordinal int) string {
	return claim + "-" + set + "-" + strconv.Itoa(ordinal)
}

// Retention policy values (as in the set file).
const (
	Retain = "Retain"
	Delete = "Delete"
)

// RemoveOnScaleDown says whether a volume of an ordinal outside the desired range
// may be removed: only under whenScaled=Delete, only when a scale-down of the set
// condemned the ordinal's replica while that policy held (condemned), and only
// once its container is gone. As in Kubernetes, the volumes a delete of the set
// kept, or that an earlier scale-down left under Retain, are never removed.
func RemoveOnScaleDown(whenScaled string, condemned, containerGone bool) bool {
	return whenScaled == Delete && condemned && containerGone
}

// RemoveOnSetDelete says whether ostset down removes the set's volumes.
func RemoveOnSetDelete(whenDeleted string, explicit bool) bool {
	return explicit || whenDeleted == Delete
}
