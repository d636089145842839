//go:build integration

package integration

import (
	"os"
	"testing"
)

// The Debian base of the database images (make test-images,
// scripts/build-db-images.sh; OSTSET_TEST_BASE names another) has no man
// pages but keeps the directories of the man sections: a package whose
// scripts link a page there, as a JRE's update-alternatives --slave does
// into man1, installs. A base of an earlier recipe is built again by make
// test-images.
func TestDebianBaseKeepsTheManSectionDirs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	base := os.Getenv("OSTSET_TEST_BASE")
	if base == "" {
		base = "ostset-test/debian:bookworm"
	}
	out, err := h.tryDocker("run", "--rm", "--label", "io.ostset.test="+h.set, base,
		"update-alternatives", "--install", "/usr/local/bin/"+h.set, h.set, "/bin/true", "1",
		"--slave", "/usr/share/man/man1/"+h.set+".1.gz", h.set+".1.gz", "/bin/true")
	if err != nil {
		t.Errorf("a link into /usr/share/man/man1 in %s: %v\n%s\n(an image of an earlier recipe: make test-images builds it again)", base, err, out)
	}
}
