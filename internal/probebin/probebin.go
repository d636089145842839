// Package probebin holds the probe program ostset copies into a replica
// whose healthcheck is a Kubernetes tcpSocket or httpGet readinessProbe
// (cmd/ostset-probe), built for linux/amd64 and linux/arm64 by `make probes`
// before ostset itself and embedded gzip-compressed, so that an ostset built
// for any system (macOS, Windows, Linux) carries a probe for the engine's
// Linux. A build without them (a plain `go build`) has none: For says so.
package probebin

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
)

//go:embed probes
var files embed.FS

var cache sync.Map // arch → []byte

// Name is the file of the probe for a Linux architecture.
func Name(arch string) string { return "probes/ostset-probe-linux-" + arch + ".gz" }

// For returns the probe program for linux/arch (Go's names: amd64, arm64).
func For(arch string) ([]byte, error) {
	if b, ok := cache.Load(arch); ok {
		return b.([]byte), nil
	}
	z, err := files.ReadFile(Name(arch))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("this ostset carries no probe for linux/%s (build ostset with make build, which builds the probes for linux/amd64 and linux/arm64 first)", arch)
		}
		return nil, err
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("the probe for linux/%s: %w", arch, err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("the probe for linux/%s: %w", arch, err)
	}
	cache.Store(arch, b)
	return b, nil
}
