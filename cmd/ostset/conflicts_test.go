package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// describe names each conflict, each way out once, and the adopted owners.
func TestDescribeConflictsAndAdopted(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out}
	way := "to take the set over on purpose, run 'ostset up --adopt -f FILE' here"
	s := plan.Status{Name: "web", ConflictDetails: []plan.Conflict{
		{Kind: "container", Name: "web-0", Message: "container web-0 (abc) belongs to set web of state directory /a (id x), not to this one", Resolve: way},
		{Kind: "volume", Name: "data-web-0", Message: "volume data-web-0 belongs to set web of state directory /a (id x), not to this one", Resolve: way},
	}}
	st := state.State{AdoptedOwners: []plan.Owner{{ID: "y", Dir: "/b"}}}
	if err := a.describe(st, s, nil, daemonInfo{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nAdopted from:    /b (id y)\n",
		"\n  conflict: container web-0 (abc) belongs to set web of state directory /a (id x), not to this one\n" +
			"  conflict: volume data-web-0 belongs to set web of state directory /a (id x), not to this one\n" +
			"    " + way + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("describe lacks %q:\n%s", want, out.String())
		}
	}
}
