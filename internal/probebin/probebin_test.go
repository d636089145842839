package probebin

import (
	"bytes"
	"strings"
	"testing"
)

// An architecture the build carries gives an ELF executable; one it does not
// carry says how to build it.
func TestFor(t *testing.T) {
	if _, err := For("mips"); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("mips: %v, want an error that says to build with make build", err)
	}
	if _, err := files.ReadFile(Name("amd64")); err != nil {
		t.Skip("built without the probes (make probes)")
	}
	for _, arch := range []string{"amd64", "arm64"} {
		b, err := For(arch)
		if err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
			t.Errorf("%s: %d bytes, %v; want an ELF executable", arch, len(b), err)
		}
	}
}
