//go:build integration

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// A registry that cannot be reached (nothing listens on its port): exit 1,
// not 2, told at the file's image: line, with the image the set runs now.
func TestLwUpRegistryUnreachableExitOne(t *testing.T) {
	t.Parallel()
	h := newHarnessPrefix(t, "lw")
	h.noCredentials()
	h.mustOstset("up", "-f", h.writePullSpec(imageV1, "IfNotPresent"))
	unreachable := fmt.Sprintf("127.0.0.1:31401/%s/web:1", h.set) // nothing listens on 31401
	spec := h.writePullSpec(unreachable, "IfNotPresent")
	r := h.ostset("up", "-f", spec)
	want := fmt.Sprintf("%s: template.image: pull %s: the registry cannot be reached: ", lineOf(t, spec, "  image:"), unreachable)
	if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "runs "+imageV1+", revision ") {
		t.Errorf("want exit 1, %q and the image it runs now:\n%s", want, r)
	}
}
