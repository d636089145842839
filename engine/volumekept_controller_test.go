package engine_test

import (
	"slices"
	"testing"

	"github.com/ostset/ostset/engine/enginetest"
)

// A scale-down says which volumes it kept of the ordinals it removed.
func TestScaleDownSaysWhichVolumesItKept(t *testing.T) {
	rt := enginetest.New()
	c, events := newController(t, rt, 2, "v1")
	converge(t, c)
	apply(t, c.Store, 1, "v1")
	converge(t, c)
	want := "web-1 removed (scale down); volumes kept: data-web-1 (ostset volumes web)"
	if !slices.Contains(*events, want) {
		t.Errorf("events %q lack %q", *events, want)
	}
}
