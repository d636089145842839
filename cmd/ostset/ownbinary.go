package main

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/internal/probebin"
)

// probeProgram gives the probe a replica's healthcheck runs when it is
// ostset's (a Kubernetes tcpSocket or httpGet readinessProbe), for the
// architecture of rt's engine: the one built into ostset (internal/probebin).
// An ostset built without them (go build rather than make build) gives
// itself when it is a static Linux executable for that architecture, as it
// has the same probe command.
func probeProgram(rt engine.Runtime) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		arch := runtime.GOARCH
		if d, ok := rt.(*docker.Runtime); ok {
			a, err := d.EngineArch(ctx)
			if err != nil {
				return nil, err
			}
			arch = a
		}
		b, err := probebin.For(arch)
		if err == nil || runtime.GOOS != "linux" || runtime.GOARCH != arch {
			return b, err
		}
		exe, xerr := os.Executable()
		if xerr != nil {
			return nil, err
		}
		own, xerr := checkOwnBinary(exe)
		if xerr != nil || own.Dynamic {
			return nil, err
		}
		return os.ReadFile(own.Path)
	}
}

// ownBinary is a Linux ostset executable.
type ownBinary struct {
	Path string
	// Dynamic is set when the binary is dynamically linked (built with cgo):
	// in a replica it needs a C library that the image may not have.
	Dynamic bool
}

func checkOwnBinary(exe string) (ownBinary, error) {
	path, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return ownBinary{}, fmt.Errorf("the ostset binary %s is gone (moved or deleted since this ostset started): start ostset again from where it is now", exe)
	}
	if strings.HasSuffix(path, ".test") {
		// A go test binary is not ostset: its probe command does not exist.
		return ownBinary{}, fmt.Errorf("%s is a go test binary, not ostset: run ostset itself (OSTSET_BIN in the integration tests)", path)
	}
	dynamic, err := dynamicallyLinked(path)
	if err != nil {
		return ownBinary{}, fmt.Errorf("the ostset binary %s: %w", path, err)
	}
	return ownBinary{Path: path, Dynamic: dynamic}, nil
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
