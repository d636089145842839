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

// RemoveOnSetDelete says whether ostset down removes the set's volumes.
func RemoveOnSetDelete(whenDeleted string, explicit bool) bool {
	return explicit || whenDeleted == Delete
}
