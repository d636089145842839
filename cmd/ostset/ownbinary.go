package main

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ostset/ostset/engine"
)

// ownBinary finds the running ostset binary, which a replica's healthcheck
// runs when it is ostset's probe (a Kubernetes tcpSocket or httpGet
// readinessProbe). It is looked up at each create: a binary moved since the
// process started is found where it is now; a deleted one is an error that
// says so, since Docker cannot bind-mount a file that is not there.
func ownBinary() (engine.OwnBinary, error) {
	exe, err := os.Executable()
	if err != nil {
		return engine.OwnBinary{}, fmt.Errorf("cannot find the ostset binary to mount: %w", err)
	}
	return checkOwnBinary(exe)
}

func checkOwnBinary(exe string) (engine.OwnBinary, error) {
	path, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return engine.OwnBinary{}, fmt.Errorf("the ostset binary %s is gone (moved or deleted since this ostset started): start ostset again from where it is now", exe)
	}
	if strings.HasSuffix(path, ".test") {
		// A go test binary is not ostset: its probe command does not exist.
		return engine.OwnBinary{}, fmt.Errorf("%s is a go test binary, not ostset: run ostset itself (OSTSET_BIN in the integration tests)", path)
	}
	dynamic, err := dynamicallyLinked(path)
	if err != nil {
		return engine.OwnBinary{}, fmt.Errorf("the ostset binary %s: %w", path, err)
	}
	return engine.OwnBinary{Path: path, Dynamic: dynamic}, nil
}

// dynamicallyLinked reports whether an ELF executable asks for a dynamic
// loader (PT_INTERP): one built with cgo. A static one (CGO_ENABLED=0, as
// make build does) runs in any Linux image.
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
