package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ostset/ostset/internal/suggest"
)

// suggestTarget suggests the set, or the replica of a set, that arg most
// likely misspells: "web-1" for "wbe-1".
func suggestTarget(arg string, sets []string) string {
	if best := suggest.Closest(arg, sets); best != "" {
		return fmt.Sprintf(": did you mean %q?", best)
	}
	if i := strings.LastIndex(arg, "-"); i > 0 {
		if _, err := strconv.Atoi(arg[i+1:]); err == nil {
			if best := suggest.Closest(arg[:i], sets); best != "" {
				return fmt.Sprintf(": did you mean %q?", best+arg[i:])
			}
		}
	}
	return ""
}
