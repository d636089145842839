package docker

import (
	"context"
	"errors"
	"fmt"
	"github.com/ostset/ostset/docker/proclimits"
	"os"
	"strconv"
	"strings"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
)

var _ engine.HostChecker = (*Runtime)(nil)

// HeldPorts lists the host ports that the engine's running containers publish.
func (r *Runtime) HeldPorts(ctx context.Context) ([]engine.HeldPort, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var out []engine.HeldPort
	for _, c := range res.Items {
		name := c.ID
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		for _, p := range c.Ports {
			if p.PublicPort == 0 {
				continue
			}
			ip := ""
			if p.IP.IsValid() {
				ip = p.IP.String()
			}
			out = append(out, engine.HeldPort{Container: name, Set: setOf(c.Labels), HostIP: ip,
				Port: int(p.PublicPort), Protocol: p.Type})
		}
	}
	return out, nil
}

// local reports whether the engine runs on this host: it is reached through a
// unix socket. Only then does a path here name the path the engine sees.
func (r *Runtime) local() bool {
	return strings.HasPrefix(r.cli.DaemonHost(), "unix://")
}

// BindSourceExists reports whether a bind source exists, when the engine runs
// on this host.
func (r *Runtime) BindSourceExists(path string) (exists, known bool) {
	if !r.local() {
		return false, false
	}
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, true
	case errors.Is(err, os.ErrNotExist):
		return false, true
	}
	return false, false // not allowed to look, say: the engine may be
}

// EngineLimits returns the hard limits of the engine's process, which a
// container cannot exceed unless the engine may raise limits
// (CAP_SYS_RESOURCE): then only nofile is bounded, by fs.nr_open. Known only
// for the engine of this host at the default socket, whose pid file is
// /var/run/docker.pid; nil otherwise.
func (r *Runtime) EngineLimits(context.Context) (map[string]int64, error) {
	switch strings.TrimPrefix(r.cli.DaemonHost(), "unix://") {
	case "/var/run/docker.sock", "/run/docker.sock":
	default:
		return nil, nil
	}
	b, err := os.ReadFile("/var/run/docker.pid")
	if err != nil {
		return nil, nil //nolint:nilerr // unknown, not a failure: the engine's own refusal still says it
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, nil //nolint:nilerr // as above
	}
	return proclimits.Of("/proc", pid), nil
}
