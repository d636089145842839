// Package suggest finds the word a user most likely meant: an unknown field
// of a set file, an unknown set name, a missing image tag. It imports nothing
// of ostset.
package suggest

import (
	"fmt"
	"strconv"
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

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Target suggests the set, or the replica of a set, that arg most likely
// misspells: ": did you mean "web-1"?" for "wbe-1"; "" if none.
func Target(arg string, sets []string) string {
	if best := Closest(arg, sets); best != "" {
		return fmt.Sprintf(": did you mean %q?", best)
	}
	if i := strings.LastIndex(arg, "-"); i > 0 {
		if _, err := strconv.Atoi(arg[i+1:]); err == nil {
			if best := Closest(arg[:i], sets); best != "" {
				return fmt.Sprintf(": did you mean %q?", best+arg[i:])
			}
		}
	}
	return ""
}
