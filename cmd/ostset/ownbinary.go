package main

import (
	"context"
	"os"
	"runtime"

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
		own, xerr := probebin.CheckOwnBinary(exe)
		if xerr != nil || own.Dynamic {
			return nil, err
		}
		return os.ReadFile(own.Path)
	}
}
