package docker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	return processLimits("/proc", pid), nil
}

// procLimitNames maps the rows of /proc/PID/limits to Docker's ulimit names.
// Their units are setrlimit's, as Docker's ulimits are.
var procLimitNames = map[string]string{
	"Max cpu time": "cpu", "Max file size": "fsize", "Max data size": "data", "Max stack size": "stack",
	"Max core file size": "core", "Max resident set": "rss", "Max processes": "nproc", "Max open files": "nofile",
	"Max locked memory": "memlock", "Max file locks": "locks", "Max pending signals": "sigpending",
	"Max msgqueue size": "msgqueue", "Max nice priority": "nice", "Max realtime priority": "rtprio",
	"Max realtime timeout": "rttime",
}

// capSysResource is CAP_SYS_RESOURCE's bit in /proc/PID/status's CapEff.
const capSysResource = 24

// processLimits reads the hard limits of process pid (a dockerd) under proc;
// nil when it cannot (no such process, or not a dockerd).
func processLimits(proc string, pid int) map[string]int64 {
	dir := filepath.Join(proc, strconv.Itoa(pid))
	if comm, err := os.ReadFile(filepath.Join(dir, "comm")); err != nil || strings.TrimSpace(string(comm)) != "dockerd" {
		return nil
	}
	if capable(filepath.Join(dir, "status"), capSysResource) {
		b, err := os.ReadFile(filepath.Join(proc, "sys/fs/nr_open"))
		if n, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && perr == nil {
			return map[string]int64{"nofile": n}
		}
		return nil
	}
	f, err := os.Open(filepath.Join(dir, "limits"))
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for row, name := range procLimitNames {
			rest, ok := strings.CutPrefix(line, row+" ")
			if !ok {
				continue
			}
			fields := strings.Fields(rest) // soft hard [units]
			if len(fields) < 2 {
				continue
			}
			if fields[1] == "unlimited" {
				out[name] = -1
			} else if n, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// capable reports whether the CapEff line of a /proc/PID/status file holds bit.
func capable(status string, bit uint) bool {
	b, err := os.ReadFile(status)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<bit) != 0
		}
	}
	return false
}
