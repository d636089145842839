package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

func parseSets(t *testing.T, text string) []config.Set {
	t.Helper()
	sets, err := config.Parse("set.yaml", []byte(text), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

const preflightSet = `name: web
replicas: 3
template:
  image: app
  ports:
    - {containerPort: 80, hostPort: 21400}
  volumeMounts:
    - {source: /srv/missing, target: /conf}
  ulimits:
    nofile: 65536
  initContainers:
    - name: setup
      image: app
      volumeMounts:
        - {source: /srv/there, target: /x}
`

// Each problem the engine would refuse is reported with the line of the field
// that causes it: host ports held by a container or another set, a bind
// source that does not exist, a limit above the engine's.
func TestCheckHost(t *testing.T) {
	sets := parseSets(t, preflightSet)
	others := parseSets(t, "name: db\nreplicas: 2\ntemplate:\n  image: db\n  ports:\n    - {containerPort: 5432, hostPort: 21402}\n")
	host := engine.Host{
		Ports: []engine.HeldPort{
			{Container: "web-0", Set: "web", Port: 21400, Protocol: "tcp"},        // its own replica: fine
			{Container: "stray", Port: 21401, Protocol: "tcp", HostIP: "0.0.0.0"}, // a foreign container
			{Container: "stray", Port: 21401, Protocol: "tcp", HostIP: "::"},      // the same, on IPv6
			{Container: "stray-udp", Port: 21401, Protocol: "udp"},                // another protocol: fine
			{Container: "other", Port: 21403, Protocol: "tcp"},                    // beyond the range: fine
		},
		Limits:  map[string]int64{"nofile": 20000},
		Missing: map[string]bool{"/srv/missing": true},
	}
	err := engine.CheckHost(sets, others, host)
	var he *engine.HostError
	if !errors.As(err, &he) {
		t.Fatalf("CheckHost: %v, want a *HostError", err)
	}
	want := []string{
		"set.yaml:6: template.ports[0].hostPort: host port 21401 (for web-1) is already held by container stray",
		"set.yaml:6: template.ports[0].hostPort: host ports 21400-21402 overlap 21402-21403 of set db (set.yaml:6)",
		"set.yaml:8: template.volumeMounts[0].source: bind source /srv/missing does not exist on the engine's host (Docker does not create it)",
		"set.yaml:10: template.ulimits.nofile: hard limit 65536 is above the engine's own hard limit of 20000, which a container cannot exceed; use at most 20000",
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckHost:\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

// A set that runs holds its own ports: an up of it unchanged finds nothing,
// nor does a host that cannot tell its limits.
func TestCheckHostOwnSet(t *testing.T) {
	sets := parseSets(t, strings.Replace(preflightSet, "/srv/missing", "/srv/there", 1))
	host := engine.Host{Ports: []engine.HeldPort{
		{Container: "web-0", Set: "web", Port: 21400, Protocol: "tcp"},
		{Container: "web-1", Set: "web", Port: 21401, Protocol: "tcp"},
		{Container: "web-2", Set: "web", Port: 21402, Protocol: "tcp"},
	}}
	if err := engine.CheckHost(sets, nil, host); err != nil {
		t.Errorf("CheckHost of a set on its own ports: %v", err)
	}
}

// A scale-up is checked for the ports of the ordinals it adds.
func TestCheckHostScaleUp(t *testing.T) {
	s := parseSets(t, strings.Replace(preflightSet, "/srv/missing", "/srv/there", 1))[0]
	held := engine.Host{Ports: []engine.HeldPort{{Container: "stray", Port: 21404, Protocol: "tcp"}}}
	if err := engine.CheckHost([]config.Set{s}, nil, held); err != nil {
		t.Fatalf("3 replicas: %v", err)
	}
	n := 5
	s.Replicas = &n
	err := engine.CheckHost([]config.Set{s}, nil, held)
	if err == nil || !strings.Contains(err.Error(), "host port 21404 (for web-4) is already held by container stray") {
		t.Errorf("scaled to 5: %v", err)
	}
}

// hostFake is a runtime on a host with the given bind sources and nothing
// else: no held port, no known limit.
type hostFake struct {
	*enginetest.Runtime
	present map[string]bool
}

func (h hostFake) HeldPorts(context.Context) ([]engine.HeldPort, error)   { return nil, nil }
func (h hostFake) EngineLimits(context.Context) (map[string]int64, error) { return nil, nil }
func (h hostFake) BindSourceExists(path string) (exists, known bool)      { return h.present[path], true }

// A templated bind source is checked as each replica will have it: with
// /srv/data/0 and /srv/data/1 present, two replicas are fine, and a third is
// refused for its own path.
func TestPreflightExpandsTemplatedBindSources(t *testing.T) {
	c := &engine.Controller{Runtime: hostFake{Runtime: enginetest.New(), present: map[string]bool{"/srv/data/0": true, "/srv/data/1": true}},
		Store: state.Store{Dir: t.TempDir()}}
	set := func(n int) []config.Set {
		return parseSets(t, fmt.Sprintf("name: web\nreplicas: %d\ntemplate:\n  image: app\n  volumeMounts:\n    - {source: \"/srv/data/{{.Ordinal}}\", target: /data}\n", n))
	}
	if err := c.Preflight(context.Background(), set(2)); err != nil {
		t.Fatalf("two replicas whose sources exist: %v", err)
	}
	err := c.Preflight(context.Background(), set(3))
	want := "set.yaml:6: template.volumeMounts[0].source: bind source /srv/data/2 (for web-2) does not exist on the engine's host (Docker does not create it)"
	if err == nil || err.Error() != want {
		t.Fatalf("three replicas: %v, want %s", err, want)
	}
}

// A hostPort shifted down by less than the replica count is refused: the
// rolling update replaces web-1 first, whose new port web-0 holds until it
// is replaced after web-1. Shifted up, web-1 goes first and frees web-0's new
// port; shifted by the replica count, nothing overlaps. Under OnDelete the
// order is a person's, so any overlap is refused; under Recreate none is.
func TestCheckHostRefusesAPortShiftTheRolloutCannotFinish(t *testing.T) {
	held := []engine.HeldPort{
		{Container: "web-0", Set: "web", Port: 19610, Protocol: "tcp"},
		{Container: "web-1", Set: "web", Port: 19611, Protocol: "tcp"},
	}
	set := func(port int, extra string) []config.Set {
		return parseSets(t, fmt.Sprintf("name: web\nreplicas: 2\n%stemplate:\n  image: app\n  ports:\n    - {containerPort: 80, hostPort: %d}\n", extra, port))
	}
	err := engine.CheckHost(set(19609, ""), nil, engine.Host{Ports: held})
	want := "set.yaml:6: template.ports[0].hostPort: host port 19610 (for web-1) is held by web-0 of this set, which the update would replace only after web-1: " +
		"shift hostPort by at least the replica count (2) or upwards, or scale the set to 0 first and then apply the change"
	if err == nil || err.Error() != want {
		t.Fatalf("shift down by 1: %v\nwant %s", err, want)
	}
	for _, port := range []int{19611, 19608, 19612, 19610} {
		if err := engine.CheckHost(set(port, ""), nil, engine.Host{Ports: held}); err != nil {
			t.Errorf("hostPort %d: %v", port, err)
		}
	}
	if err := engine.CheckHost(set(19611, "updateStrategy:\n  type: OnDelete\n"), nil, engine.Host{Ports: held}); err == nil {
		t.Error("a shift under OnDelete was not refused")
	}
	// Under Recreate every old replica is gone before any new one starts.
	if err := engine.CheckHost(set(19609, "updateStrategy:\n  type: Recreate\n"), nil, engine.Host{Ports: held}); err != nil {
		t.Errorf("a shift under Recreate: %v", err)
	}
}
