package probebin

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"
)

// OwnBinary is a Linux ostset executable.
type OwnBinary struct {
	Path string
	// Dynamic is set when the binary is dynamically linked (built with cgo):
	// in a replica it needs a C library that the image may not have.
	Dynamic bool
}

// CheckOwnBinary finds the ostset executable exe resolves to, and whether it
// is dynamically linked.
func CheckOwnBinary(exe string) (OwnBinary, error) {
	path, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return OwnBinary{}, fmt.Errorf("the ostset binary %s is gone (moved or deleted since this ostset started): start ostset again from where it is now", exe)
	}
	if strings.HasSuffix(path, ".test") {
		// A go test binary is not ostset: its probe command does not exist.
		return OwnBinary{}, fmt.Errorf("%s is a go test binary, not ostset: run ostset itself (OSTSET_BIN in the integration tests)", path)
	}
	dynamic, err := dynamicallyLinked(path)
	if err != nil {
		return OwnBinary{}, fmt.Errorf("the ostset binary %s: %w", path, err)
	}
	return OwnBinary{Path: path, Dynamic: dynamic}, nil
}

// dynamicallyLinked reports whether an ELF executable asks for a dynamic
// loader (PT_INTERP): one built with cgo. A static one (CGO_ENABLED=0)
// runs in any Linux image.
func dynamicallyLinked(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, fmt.Errorf("not an ELF executable: %w", err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true, nil
		}
	}
	return false, nil
}
