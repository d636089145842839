// Package volumes holds the rules for per-ordinal volumes: their names and when
// the retention policy lets one go.
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
// may be removed: only under whenScaled=Delete, and only once its container is gone.
func RemoveOnScaleDown(whenScaled string, containerGone bool) bool {
	return whenScaled == Delete && containerGone
}

// RemoveOnSetDelete says whether ostset down removes the set's volumes.
func RemoveOnSetDelete(whenDeleted string, explicit bool) bool {
	return explicit || whenDeleted == Delete
}
