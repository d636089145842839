package config

import (
	"slices"
	"strings"
)

// Closest is the candidate that name most likely misspells: one that differs
// in case only, or by at most two letters (and by fewer letters than name
// has: "ab" is two edits from any short word); "" if none. Ties go to the
// first in sorted order. Unknown fields, unknown sets and missing image tags
// all suggest through it.
func Closest(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		d := editDistance(strings.ToLower(c), strings.ToLower(name))
		if d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist >= len(name) {
		return ""
	}
	return best
}

// closestKey is Closest over a map's keys.
func closestKey[V any](name string, m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return Closest(name, keys)
}
