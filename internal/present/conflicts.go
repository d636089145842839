package present

import (
	"fmt"
	"io"
	"slices"

	"github.com/ostset/ostset/engine/plan"
)

// PrintConflicts writes one line per conflict, then each distinct way out once.
func PrintConflicts(w io.Writer, indent string, cs []plan.Conflict) {
	var ways []string
	for _, c := range cs {
		fmt.Fprintf(w, "%sconflict: %s\n", indent, c.Message)
		if c.Resolve != "" && !slices.Contains(ways, c.Resolve) {
			ways = append(ways, c.Resolve)
		}
	}
	for _, r := range ways {
		fmt.Fprintf(w, "%s  %s\n", indent, r)
	}
}

// PrintAdopted names the owners whose objects a set adopted on purpose.
func PrintAdopted(w io.Writer, label string, owners []plan.Owner) {
	for _, o := range owners {
		dir := o.Dir
		if dir == "" {
			dir = "(unknown path)"
		}
		fmt.Fprintf(w, "%s%s (id %s)\n", label, dir, o.ID)
	}
}
