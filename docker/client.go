// Package docker implements engine.Runtime on a Docker Engine through the moby Go SDK.
//
// The SDK (github.com/moby/moby/client, v0.x) stays behind this package: nothing
// else in ostset imports it. Every object is found by name or label, and nothing
// without the set's io.ostset.set label is ever stopped, removed or changed.
package docker

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
)

// Runtime talks to one Docker Engine. It is safe for concurrent use.
type Runtime struct {
	cli *client.Client
	// callTimeout bounds each operation on the engine (default CallTimeout).
	callTimeout time.Duration
	// networks caches network IDs by name (see EnsureNetwork).
	networks sync.Map
	// died holds the containers whose die a Watch saw, for the next
	// observation of their set to inspect.
	died engine.Dies
	// engine is what is known of the engine's kind (see isPodman).
	engine engineInfo
}

// CallTimeout is how long one operation on the engine (an observation, a
// create with its volumes, a start, a remove beyond its grace period) may take:
// an engine that hangs must not hold a set's lock forever. Streams (events,
// followed logs) and image pulls are not bounded by it.
const CallTimeout = 60 * time.Second

// bound gives an operation its deadline: the call timeout plus extra (a stop's
// grace period, say).
func (r *Runtime) bound(ctx context.Context, extra time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cmp.Or(r.callTimeout, CallTimeout)+extra)
}

var _ engine.Runtime = (*Runtime)(nil)

// New connects to the engine named by the usual environment (DOCKER_HOST,
// DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_API_VERSION). The API version is
// negotiated with the engine on the first request (the SDK's default); nothing
// is sent until then, so call Ping to find out whether the engine is reachable.
func New() (*Runtime, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Runtime{cli: cli}, nil
}

// Close releases the client's idle connections.
func (r *Runtime) Close() error {
	if err := r.cli.Close(); err != nil {
		return fmt.Errorf("close docker client: %w", err)
	}
	return nil
}

// Ping checks that the engine answers and negotiates the API version.
func (r *Runtime) Ping(ctx context.Context) error {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	if _, err := r.cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return fmt.Errorf("docker engine at %s is unreachable: %w", r.cli.DaemonHost(), err)
	}
	return nil
}

// DaemonHost is the address of the engine, for messages.
func (r *Runtime) DaemonHost() string {
	return r.cli.DaemonHost()
}

// APIVersion is the API version the client speaks with the engine (negotiated
// by Ping).
func (r *Runtime) APIVersion() string { return r.cli.ClientVersion() }

// HasStartInterval tells whether the engine takes a healthcheck's start
// interval (API 1.44, Docker 25): below, it drops the field without a word.
func (r *Runtime) HasStartInterval() bool { return !apiBelow(r.APIVersion(), 1, 44) }

// StartIntervalUnsupported says why a start interval cannot be applied.
func StartIntervalUnsupported(version string) string {
	return fmt.Sprintf("healthcheck start interval needs the engine API 1.44 (Docker 25); this engine speaks %s", version)
}

// apiBelow compares an API version "MAJOR.MINOR" with major.minor.
func apiBelow(version string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return true
	}
	return ma < major || ma == major && mi < minor
}
