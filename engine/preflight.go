package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ostset/ostset/engine/setcheck"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// HeldPort is a host port that a running container publishes.
type HeldPort struct {
	Container string // its name
	// Set is the container's io.ostset.set label, "" for a container that is
	// not a set's.
	Set      string
	HostIP   string // "" or 0.0.0.0: every address
	Port     int
	Protocol string
}

// HostChecker is what a runtime can tell about the engine's host before a
// set is applied, so that a set the engine would refuse is reported at once
// with its file and line (see Preflight). A runtime that cannot tell leaves
// it out; the engine's own refusal is then a PermanentError.
type HostChecker interface {
	// HeldPorts lists the host ports that running containers publish.
	HeldPorts(ctx context.Context) ([]HeldPort, error)
	// EngineLimits returns the highest hard limit, by ulimit name (as
	// "nofile"), that the engine can give a container (-1: unlimited); nil
	// when it cannot tell (a remote engine, say).
	EngineLimits(ctx context.Context) (map[string]int64, error)
	// BindSourceExists reports whether path exists on the engine's host;
	// known is false when it cannot tell.
	BindSourceExists(path string) (exists, known bool)
}

// Host is what a HostChecker told, as values.
type Host struct {
	Ports []HeldPort
	// Limits: see HostChecker.EngineLimits; nil when unknown.
	Limits map[string]int64
	// Missing holds the bind sources known not to exist.
	Missing map[string]bool
}

// Preflight checks sets (the sets one command applies, or one set a scale
// changes) against the engine's host, before anything is stored: host ports
// held by containers that are not the set's own, or published by other sets
// of the state directory, bind sources that do not exist, and limits above
// the engine's. It is nil when the runtime cannot tell (not a HostChecker).
// The problems are a *HostError.
func (c *Controller) Preflight(ctx context.Context, sets []config.Set) error {
	hc, ok := c.Runtime.(HostChecker)
	if !ok {
		return nil
	}
	var host Host
	var err error
	if host.Ports, err = hc.HeldPorts(ctx); err != nil {
		return err
	}
	if host.Limits, err = hc.EngineLimits(ctx); err != nil {
		return err
	}
	host.Missing = setcheck.MissingBindSources(sets, hc.BindSourceExists)
	var others []config.Set
	names, err := c.Store.List()
	if err != nil {
		return err
	}
	for _, name := range names {
		if slices.ContainsFunc(sets, func(s config.Set) bool { return s.Name == name }) {
			continue
		}
		st, err := c.Store.Load(name)
		if errors.Is(err, state.ErrUnknownSet) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if st.Deleting == nil {
			others = append(others, st.Spec)
		}
	}
	return CheckHost(sets, others, host)
}

// CheckHost is Preflight's rule, pure: what is wrong with sets on a host, given
// the other sets of the state directory. A set's own containers hold its own
// ports (an unchanged set that runs is fine); ordinal i publishes hostPort+i,
// for every desired ordinal, those a scale-up adds included.
func CheckHost(sets, others []config.Set, host Host) error {
	var errs []error
	for _, s := range sets {
		errs = append(errs, checkPorts(s, others, host.Ports)...)
		errs = append(errs, checkPortShift(s, host.Ports)...)
		errs = append(errs, setcheck.CheckBindSources(s, host.Missing)...)
		errs = append(errs, checkLimits(s, host.Limits)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return &HostError{Problems: errs}
}

// HostError lists what is wrong with sets on the engine's host, one line
// "FILE:LINE: field: message" each: invalid input, not a runtime failure.
type HostError struct{ Problems []error }

func (e *HostError) Error() string   { return errors.Join(e.Problems...).Error() }
func (e *HostError) Unwrap() []error { return e.Problems }

// portRange is the host ports one ports entry publishes over a set's
// desired ordinals.
type portRange struct {
	path             string
	lo, hi, first    int
	hostIP, protocol string
}

func hostPortRanges(s config.Set) []portRange {
	n := s.DesiredReplicas()
	if n <= 0 {
		return nil
	}
	first := s.Ordinals.Start
	var out []portRange
	for i, p := range s.Template.Ports {
		if p.HostPort <= 0 {
			continue
		}
		out = append(out, portRange{fmt.Sprintf("template.ports[%d].hostPort", i), p.HostPort + first, p.HostPort + first + n - 1,
			first, p.HostIP, cmp.Or(strings.ToLower(p.Protocol), "tcp")})
	}
	return out
}

func sameHostIP(a, b string) bool {
	every := func(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }
	return a == b || every(a) || every(b)
}

func checkPorts(s config.Set, others []config.Set, held []HeldPort) []error {
	var errs []error
	for _, r := range hostPortRanges(s) {
		reported := map[string]bool{} // sets named by a container already
		seen := map[string]bool{}     // a port published on IPv4 and IPv6 is one
		for _, h := range held {
			if h.Set == s.Name || h.Port < r.lo || h.Port > r.hi || cmp.Or(h.Protocol, "tcp") != r.protocol || !sameHostIP(h.HostIP, r.hostIP) {
				continue
			}
			key := fmt.Sprint(h.Container, "/", h.Port)
			if seen[key] {
				continue
			}
			seen[key] = true
			holder := "container " + h.Container
			if h.Set != "" {
				holder += " of set " + h.Set
				reported[h.Set] = true
			}
			errs = append(errs, fmt.Errorf("%s: %s: host port %d (for %s) is already held by %s",
				s.FieldSource(r.path), r.path, h.Port, plan.ReplicaName(s.Name, r.first+h.Port-r.lo), holder))
		}
		for _, o := range others {
			if reported[o.Name] {
				continue
			}
			for _, x := range hostPortRanges(o) {
				if x.protocol == r.protocol && sameHostIP(x.hostIP, r.hostIP) && r.lo <= x.hi && x.lo <= r.hi {
					errs = append(errs, fmt.Errorf("%s: %s: host ports %d-%d overlap %d-%d of set %s (%s)",
						s.FieldSource(r.path), r.path, r.lo, r.hi, x.lo, x.hi, o.Name, o.FieldSource(x.path)))
				}
			}
		}
	}
	return errs
}

// checkPortShift refuses a change of hostPort that the rollout cannot
// finish: the port the new template gives ordinal i is held by the set's own
// replica j, at its old port, and j is not replaced before i. A rolling
// update replaces the highest ordinal first, so i waits for the port while
// j waits for i to be ready: a shift down by less than the replica count
// (19610-19611 to 19609) does that, as does any such overlap under OnDelete
// (the order is a person's) or with j below the partition (never replaced).
// A shift up (j above i) finishes: j goes first and frees the port.
func checkPortShift(s config.Set, held []HeldPort) []error {
	var errs []error
	for _, r := range hostPortRanges(s) {
		for _, h := range held {
			if h.Set != s.Name || h.Port < r.lo || h.Port > r.hi || cmp.Or(h.Protocol, "tcp") != r.protocol || !sameHostIP(h.HostIP, r.hostIP) {
				continue
			}
			j, err := strconv.Atoi(strings.TrimPrefix(h.Container, s.Name+"-"))
			i := r.first + h.Port - r.lo
			if err != nil || j == i {
				continue
			}
			rolling := s.UpdateStrategy.Type != config.OnDelete
			if s.UpdateStrategy.Type == config.Recreate || rolling && j > i && j >= s.UpdateStrategy.RollingUpdate.Partition {
				continue // replaced first (under Recreate all are), and its port freed
			}
			errs = append(errs, fmt.Errorf("%s: %s: host port %d (for %s) is held by %s of this set, which the update would replace only after %s: "+
				"shift hostPort by at least the replica count (%d) or upwards, or scale the set to 0 first and then apply the change",
				s.FieldSource(r.path), r.path, h.Port, plan.ReplicaName(s.Name, i), h.Container, plan.ReplicaName(s.Name, i), s.DesiredReplicas()))
			break
		}
	}
	return errs
}

// checkLimits compares the set's ulimits with the engine's own hard limits: a
// container cannot be given more than the engine has (setrlimit refuses:
// "operation not permitted").
func checkLimits(s config.Set, limits map[string]int64) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.Template.Ulimits)) {
		most, known := limits[name]
		if !known || most == -1 {
			continue
		}
		u := s.Template.Ulimits[name]
		for _, v := range []struct {
			what  string
			value int
		}{{"hard", u.Hard}, {"soft", u.Soft}} {
			if v.value == -1 || int64(v.value) > most {
				path := "template.ulimits." + name
				shown := fmt.Sprint(v.value)
				if v.value == -1 {
					shown = "unlimited"
				}
				errs = append(errs, fmt.Errorf("%s: %s: %s limit %s is above the engine's own hard limit of %d, which a container cannot exceed; use at most %d",
					s.FieldSource(path), path, v.what, shown, most, most))
				break
			}
		}
	}
	return errs
}
