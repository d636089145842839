package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ostset/ostset/internal/present"
)

// printPrevious prints what was kept of a replica's previous container
// (logs --previous), with where it came from on stderr.
func (a *app) printPrevious(t logTarget, opts logsOptions) error {
	if t.whole {
		return invalidf("--previous: name one replica, %s-ORDINAL", t.set)
	}
	if opts.follow || opts.init != "" {
		return invalidf("--previous takes neither --follow nor --init")
	}
	p, ok, err := a.store().LoadPrevious(t.name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s has no previous container: ostset removed none of it after a failure (the logs of a container Docker restarts in place are in 'ostset logs %s')", t.name, t.name)
	}
	fmt.Fprintf(a.stderr, "previous container %s of %s (revision %s), removed %s ago: %s\n",
		p.Container, p.Replica, p.Revision, present.Age(p.Removed, time.Now()), p.Reason)
	lines := p.Lines
	if n, err := strconv.Atoi(opts.tail); err == nil && n < len(lines) {
		lines = lines[len(lines)-n:]
	}
	for _, l := range lines {
		fmt.Fprintln(a.stdout, l)
	}
	return nil
}
