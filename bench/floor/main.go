// Command floor does what ostset does to Docker with the fewest API calls and
// nothing else: no state, no planning, no locks. The benchmarks report ostset's
// figures as ratios to it, measured in the same run. Each mode lives in its own
// file and registers itself in modes.
package main

import (
	"fmt"
	"os"
	"sort"
)

// modes maps a mode's name to its entry point; each file adds its own in init.
var modes = map[string]func(args []string) error{}

func main() {
	if len(os.Args) < 2 || modes[os.Args[1]] == nil {
		names := make([]string, 0, len(modes))
		for n := range modes {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: floor MODE [flags]; modes: %v\n", names)
		os.Exit(2)
	}
	if err := modes[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
