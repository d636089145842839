package docker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"

	"github.com/ostset/ostset/engine"
)

// permanentTexts are words of the engine's errors at a container's create or
// start that no retry cures: the container as specified cannot run on this
// engine until someone changes the set or the host. Measured on 20.10:
//
//	Bind for 0.0.0.0:21400 failed: port is already allocated
//	invalid mount config for type "bind": bind source path does not exist: /x
//	error setting rlimits for ready process: error setting rlimit type 7: operation not permitted
//	Unknown runtime specified nosuch
//	error gathering device information while adding custom device "/dev/x": no such file or directory
//	exec: "x": executable file not found in $PATH
//	create data-web-0: error looking up volume plugin x: plugin "x" not found
var permanentTexts = []string{
	"port is already allocated",
	"address already in use",
	"bind source path does not exist",
	"invalid mount config",
	"error setting rlimit",
	"unknown runtime specified",
	"error gathering device information",
	"executable file not found",
	"no such file or directory: unknown", // the entrypoint is missing from the image
	"permission denied: unknown",         // the entrypoint is not executable
	"error looking up volume plugin",     // a claim's driver that is not installed
}

// transient says whether msg, an engine error in lower case, may go away by
// itself; checked before the permanent texts: a removal in progress releases
// the name soon, and a network removed since it was cached, or made twice by a
// create whose process was killed ("network x is ambiguous (2 matches found on
// name)", a 400), is looked up again by the next pass, which keeps one of the
// duplicates (see forgetNetwork and dedupNetworks).
func transient(msg string) bool {
	return strings.Contains(msg, "is already in progress") ||
		strings.Contains(msg, "network ") && (strings.Contains(msg, "not found") || strings.Contains(msg, "is ambiguous"))
}

// classifyStart marks err, an error of creating or starting the container named
// name, as an *engine.PermanentError when a retry would not cure it. The
// engine's words are kept; everything else is returned as it is.
func classifyStart(name string, err error) error {
	if err == nil || !permanent(err) {
		return err
	}
	return &engine.PermanentError{Replica: name, Err: err}
}

// noPoolTexts are the engine's words when it has no subnet left to give a new
// network: 20.10 says "could not find an available, non-overlapping IPv4
// address pool among the defaults to assign to the network", later releases
// "all predefined address pools have been fully subnetted". Only a person
// frees or adds one.
var noPoolTexts = []string{"non-overlapping ipv4 address pool", "address pools have been fully subnetted", "no available address pool"}

// classifyNetworkCreate marks err, an error of creating the network name, as
// an *engine.PermanentError, saying what to do, when the engine has no
// address pool left: retrying it to the deadline changes nothing.
func classifyNetworkCreate(name string, err error) error {
	msg := strings.ToLower(err.Error())
	for _, t := range noPoolTexts {
		if strings.Contains(msg, t) {
			return &engine.PermanentError{Err: fmt.Errorf("%w: Docker has no subnet left in its address pools for network %s: remove unused networks (docker network prune), create the network yourself with a subnet (docker network create --subnet 10.201.0.0/24 %s), or add address pools (default-address-pools in daemon.json)", err, name, name)}
		}
	}
	return err
}

// lostStart says whether err, a start's, is the engine's refusal of a
// container whose containerd task a lost start left behind (the engine killed
// during the start): "failed to create task for container: task ID: already
// exists". The engine answers so to every start after.
func lostStart(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "task") && strings.Contains(msg, "already exists")
}

// createdNeverRun says whether a container's state is created and never run:
// no process (Pid 0), not running, restarting or paused, and no start time.
func createdNeverRun(s *container.State) bool {
	if s == nil || s.Status != container.StateCreated || s.Running || s.Restarting || s.Paused || s.Pid != 0 {
		return false
	}
	started, err := time.Parse(time.RFC3339Nano, s.StartedAt)
	return s.StartedAt == "" || err == nil && started.Year() <= 1
}

// portHeldRe finds the host port in the engine's "Bind for 0.0.0.0:21400
// failed: port is already allocated".
var portHeldRe = regexp.MustCompile(`Bind for (\S*):(\d+) failed: port is already allocated`)

// explainPort adds to err, a start refused for a host port that is already
// allocated, which container holds the port: the engine does not say.
func (r *Runtime) explainPort(ctx context.Context, err error) error {
	pe := (*engine.PermanentError)(nil)
	if !errors.As(err, &pe) {
		return err
	}
	m := portHeldRe.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	port, _ := strconv.Atoi(m[2])
	held, lerr := r.HeldPorts(context.WithoutCancel(ctx))
	if lerr != nil {
		return err
	}
	for _, h := range held {
		if h.Port == port {
			who := "container " + h.Container
			if h.Set != "" {
				who += " of set " + h.Set
			}
			pe.Err = fmt.Errorf("%w (host port %d is held by %s)", pe.Err, port, who)
			break
		}
	}
	return err
}

func permanent(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	msg := strings.ToLower(err.Error())
	if transient(msg) {
		return false
	}
	for _, t := range permanentTexts {
		if strings.Contains(msg, strings.ToLower(t)) {
			return true
		}
	}
	// Otherwise by the engine's status code: 400 means the engine rejects the
	// container as specified; anything else (a conflict, a 500 of a busy
	// engine) is worth another try.
	return cerrdefs.IsInvalidArgument(err)
}
