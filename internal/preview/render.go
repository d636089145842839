package preview

import (
	"fmt"
	"io"
	"strings"
)

// Render writes the preview of a set as `ostset diff` prints it: a line
// that says what becomes of the set, the template's changes as rollout
// history words them, the spec's other changes, then the plan, one line a
// step, marked + (made), ~ (replaced) or - (removed).
func Render(w io.Writer, s Set) {
	where := ""
	if s.Source != "" {
		where = " (" + s.Source + ")"
	}
	rev := s.Revision
	if s.UnknownRevision != "" {
		rev = "a new revision"
	}
	switch {
	case s.New:
		fmt.Fprintf(w, "%s: new set, revision %s%s\n", s.Name, rev, where)
	case s.RevisionChanged:
		fmt.Fprintf(w, "%s: revision %s -> %s%s\n", s.Name, s.Stored, rev, where)
	case s.Changed():
		fmt.Fprintf(w, "%s: revision %s unchanged%s\n", s.Name, s.Stored, where)
	default:
		fmt.Fprintf(w, "%s: no change, revision %s%s\n", s.Name, s.Stored, where)
	}
	if s.UnknownRevision != "" {
		fmt.Fprintf(w, "  note: %s\n", s.UnknownRevision)
	}
	for _, c := range s.Changes {
		fmt.Fprintf(w, "  template: %s\n", c)
	}
	for _, c := range s.SpecChanges {
		fmt.Fprintf(w, "  spec: %s\n", c)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	renderPlan(w, s.Plan)
}

func renderPlan(w io.Writer, p Plan) {
	if !p.Empty() {
		how := "each replica taken as ready once created"
		if p.Recreate {
			how += "; Recreate: every old replica is removed before the first new one is created"
		}
		fmt.Fprintf(w, "  plan (in order, %s):\n", how)
	}
	for _, r := range p.Replicas {
		fmt.Fprintf(w, "  %s\n", replicaLine(r))
	}
	for _, v := range p.Volumes {
		mark, why := "+", ""
		if v.Action == "delete" {
			mark = "-"
		}
		if v.Reason != "" {
			why = " (" + v.Reason + ")"
		}
		fmt.Fprintf(w, "  %s %s volume %s%s\n", mark, v.Action, v.Name, why)
	}
	for _, n := range p.Networks {
		if n.Action == "create" {
			fmt.Fprintf(w, "  + create network %s\n", n.Name)
		} else {
			fmt.Fprintf(w, "  - leave network %s (removed once no replica is on it, if ostset made it and nothing else uses it)\n", n.Name)
		}
	}
	if p.Held != "" {
		fmt.Fprintf(w, "  held: %s\n", p.Held)
	}
	if len(p.Waiting) > 0 {
		fmt.Fprintf(w, "  first waits for: %s\n", strings.Join(p.Waiting, "; "))
	}
	if len(p.Stalled) > 0 {
		fmt.Fprintf(w, "  then waits for: %s\n", strings.Join(p.Stalled, "; "))
	}
}

func replicaLine(r ReplicaStep) string {
	switch r.Action {
	case "create":
		return fmt.Sprintf("+ create  %s at %s", r.Name, r.To)
	case "replace":
		if r.From == r.To {
			return fmt.Sprintf("~ recreate %s at %s (%s)", r.Name, r.To, r.Reason)
		}
		return fmt.Sprintf("~ replace %s: %s -> %s", r.Name, r.From, r.To)
	case "remove":
		return fmt.Sprintf("- remove  %s at %s (%s)", r.Name, r.From, r.Reason)
	}
	return fmt.Sprintf("~ %s %s (%s)", r.Action, r.Name, r.Reason)
}
