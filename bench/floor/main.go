// Command floor does what ostset does to Docker with the fewest API calls and
// nothing else: no state, no planning, no locks. The benchmarks report ostset's
// figures as ratios to it, measured in the same run. Each mode lives in its own
// file and registers itself in modes.
//
// It talks to the engine through the Docker SDK (github.com/moby/moby/client)
// directly. That is allowed here and nowhere else outside docker/: bench/ is a
// measuring tool, not part of ostset, and ostset's own code reaches Docker only
// through the docker package. The depguard rule in .golangci.yml does not cover
// bench/ for that reason.
//
// The modes make the containers ostset makes for a set with one volume claim
// template and a healthcheck (same names, hostnames, DNS aliases, labels,
// environment, restart policy, stop timeout, one named volume per ordinal),
// with the fewest API calls, and learn of health from the engine's event
// stream, never by polling:
//
//	floor up -name N -replicas 10 -image IMG -health-cmd '/web health' [-policy Parallel]
//	floor update -name N -replicas 10 -image IMG -health-cmd '/web health' -env VERSION=2
//	floor down -name N
//
// `floor MODE -h` lists a mode's flags.
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
