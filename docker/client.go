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
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/docker/engineaddr"
	"github.com/ostset/ostset/engine"
)

// Runtime talks to one Docker Engine. It is safe for concurrent use.
type Runtime struct {
	cli *client.Client
	// endpoint is the engine and how it was chosen, for messages.
	endpoint engineaddr.Endpoint
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

// New connects to the engine the docker CLI would use (engineaddr.Resolve):
// DOCKER_HOST, DOCKER_CONTEXT, the docker config's current context, or the
// default socket.
func New() (*Runtime, error) { return Connect("") }

// Connect connects to the engine of the docker context named (as docker's
// --context), or when name is "" to the one the docker CLI would use. The API
// version is negotiated with the engine on the first request (the SDK's
// default); nothing is sent until then, so call Ping to find out whether the
// engine is reachable.
func Connect(name string) (*Runtime, error) {
	ep, err := engineaddr.Resolve(name, engineaddr.ProcessEnv())
	if err != nil {
		return nil, err
	}
	return ConnectTo(ep)
}

// ConnectTo connects to a resolved endpoint.
func ConnectTo(ep engineaddr.Endpoint) (*Runtime, error) {
	if strings.HasPrefix(ep.Host, "ssh://") {
		return nil, fmt.Errorf("engine %s: ssh:// engines need the docker CLI's ssh helper, which ostset does not have; "+
			"forward the engine's socket instead (ssh -nNT -L /tmp/remote-docker.sock:/var/run/docker.sock HOST) and use "+
			"DOCKER_HOST=unix:///tmp/remote-docker.sock or a docker context with that host", ep)
	}
	opts := []client.Opt{client.FromEnv}
	if !ep.FromEnv {
		opts = []client.Opt{client.WithAPIVersionFromEnv()}
		if ep.TLS != nil {
			cfg, err := ep.TLS.Config()
			if err != nil {
				return nil, fmt.Errorf("docker context %q: %w", ep.Context, err)
			}
			opts = append(opts, client.WithHTTPClient(&http.Client{
				Transport: &http.Transport{TLSClientConfig: cfg}, CheckRedirect: client.CheckRedirect,
			}))
		}
		opts = append(opts, client.WithHost(ep.Host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %s: %w", ep, err)
	}
	return &Runtime{cli: cli, endpoint: ep}, nil
}

// Endpoint is the engine this runtime talks to and how it was chosen.
func (r *Runtime) Endpoint() engineaddr.Endpoint { return r.endpoint }

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
		return fmt.Errorf("docker engine %s is unreachable: %w", r.where(), err)
	}
	return nil
}

// where names the engine for messages: its address and how it was chosen.
func (r *Runtime) where() string {
	if r.endpoint.Host == "" {
		return r.cli.DaemonHost()
	}
	return r.endpoint.String()
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
