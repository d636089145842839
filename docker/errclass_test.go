package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"

	"github.com/ostset/ostset/engine"
)

// The engine's own words, as 20.10 answers a create or start, sorted into what
// a retry cures and what it does not.
func TestClassifyStart(t *testing.T) {
	daemon := func(msg string) error { return errors.New("Error response from daemon: " + msg) }
	for _, tc := range []struct {
		err       error
		permanent bool
	}{
		{daemon("driver failed programming external connectivity on endpoint pf-0 (6532b2aa): Bind for 0.0.0.0:21400 failed: port is already allocated"), true},
		{daemon("driver failed programming external connectivity on endpoint pf-0 (6532): Error starting userland proxy: listen tcp4 0.0.0.0:21400: bind: address already in use"), true},
		{daemon(`invalid mount config for type "bind": bind source path does not exist: /nonexistent/x`), true},
		{daemon("failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error setting rlimits for ready process: error setting rlimit type 7: operation not permitted: unknown"), true},
		{daemon("Unknown runtime specified nosuch"), true},
		{daemon(`error gathering device information while adding custom device "/dev/nosuch": no such file or directory`), true},
		{daemon(`failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nosuchcmd": executable file not found in $PATH: unknown`), true},
		{cerrdefs.ErrInvalidArgument.WithMessage("invalid port specification"), true},
		{cerrdefs.ErrNotFound.WithMessage(`create data-pf-0: error looking up volume plugin nosuch: plugin "nosuch" not found`), true},
		// A retry cures these.
		{daemon("network 2d8d0c1e not found"), false},
		{cerrdefs.ErrNotFound.WithMessage("network 2d8d0c1e not found"), false},
		// A network made twice by a create whose process was killed: the next
		// pass keeps one (dedupNetworks).
		{cerrdefs.ErrInvalidArgument.WithMessage("network it436464-net is ambiguous (2 matches found on name)"), false},
		{daemon("removal of container pf-0 is already in progress"), false},
		{cerrdefs.ErrConflict.WithMessage(`Conflict. The container name "/pf-0" is already in use`), false},
		{fmt.Errorf("start: %w", context.DeadlineExceeded), false},
		{daemon("Cannot connect to the Docker daemon at unix:///var/run/docker.sock"), false},
	} {
		err := classifyStart("pf-0", fmt.Errorf("pf-0: start: %w", tc.err))
		if got := engine.IsPermanent(err); got != tc.permanent {
			t.Errorf("IsPermanent(%q) = %v, want %v", tc.err, got, tc.permanent)
		}
		if err.Error() != "pf-0: start: "+tc.err.Error() {
			t.Errorf("classified error %q lost the engine's words %q", err, tc.err)
		}
	}
}

// A network the engine has no subnet for is not retried to the deadline: the
// error is permanent and says what to do.
func TestClassifyNetworkCreate(t *testing.T) {
	for _, msg := range []string{
		"could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network",
		"all predefined address pools have been fully subnetted",
	} {
		err := classifyNetworkCreate("web-net", fmt.Errorf("create network web-net: %w", errors.New("Error response from daemon: "+msg)))
		if !engine.IsPermanent(err) || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "docker network prune") || !strings.Contains(err.Error(), "--subnet") {
			t.Errorf("%q: %v (permanent %v)", msg, err, engine.IsPermanent(err))
		}
	}
	if err := classifyNetworkCreate("web-net", errors.New("Error response from daemon: Cannot connect")); engine.IsPermanent(err) {
		t.Errorf("%v is permanent", err)
	}
}

// A start refused for a containerd task a lost start left behind is told
// apart from other refusals; only a container that never ran is removed for it.
func TestLostStart(t *testing.T) {
	for msg, want := range map[string]bool{
		"failed to create task for container: task 4f0c2e: already exists: unknown":                                              true,
		"Error response from daemon: failed to create shim: task 4f0c2e already exists: unknown":                                 true,
		`Conflict. The container name "/pf-0" is already in use`:                                                                 false,
		"driver failed programming external connectivity on endpoint pf-0: Bind for 0.0.0.0:1 failed: port is already allocated": false,
	} {
		if got := lostStart(fmt.Errorf("pf-0: start: %w", errors.New(msg))); got != want {
			t.Errorf("lostStart(%q) = %v, want %v", msg, got, want)
		}
	}
	never := &container.State{Status: container.StateCreated, StartedAt: "0001-01-01T00:00:00Z"}
	if !createdNeverRun(never) {
		t.Error("a created container that never started is not taken for one")
	}
	for name, s := range map[string]*container.State{
		"ran before": {Status: container.StateCreated, StartedAt: "2026-11-27T09:00:00.123Z"},
		"has a pid":  {Status: container.StateCreated, Pid: 4242, StartedAt: "0001-01-01T00:00:00Z"},
		"running":    {Status: container.StateRunning, Running: true, Pid: 4242, StartedAt: "2026-11-27T09:00:00Z"},
		"exited":     {Status: container.StateExited, StartedAt: "2026-11-27T09:00:00Z"},
		"no state":   nil,
	} {
		if createdNeverRun(s) {
			t.Errorf("%s: taken for a container that never ran", name)
		}
	}
}
