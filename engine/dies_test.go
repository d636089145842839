package engine_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ostset/ostset/engine"
)

// The containers whose die was seen go with every observation of their set
// until one that began after the die succeeds; a destroy forgets one.
func TestDies(t *testing.T) {
	var d engine.Dies
	die := func(set, id string) { d.Saw(engine.SetEvent{Set: set, ID: id, Action: "die"}) }
	die("web", "b")
	die("web", "a")
	die("db", "c")
	d.Saw(engine.SetEvent{Set: "web", ID: "a", Action: "start"}) // not a die
	ids, mark := d.Pending("web")
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Fatalf("pending = %v, want [a b]", ids)
	}
	die("web", "d") // while the engine answers
	d.Answered("web", mark)
	if ids, _ := d.Pending("web"); !slices.Equal(ids, []string{"d"}) {
		t.Errorf("after the observation pending = %v, want [d]", ids)
	}
	d.Saw(engine.SetEvent{Set: "db", ID: "c", Action: "destroy"})
	if ids, _ := d.Pending("db"); len(ids) != 0 {
		t.Errorf("a destroyed container is pending: %v", ids)
	}
}

// A set whose dies no observation answers keeps the newest 256.
func TestDiesAreBounded(t *testing.T) {
	var d engine.Dies
	for i := range 300 {
		d.Saw(engine.SetEvent{Set: "web", ID: fmt.Sprintf("c%03d", i), Action: "die"})
	}
	ids, _ := d.Pending("web")
	if len(ids) != 256 || ids[0] != "c044" {
		t.Errorf("kept %d, oldest %q; want 256 from c044", len(ids), ids[0])
	}
}
