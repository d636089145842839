//go:build integration

package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashSpec is the crash test's set: per-ordinal volumes kept on scale-down
// and delete (Retain), an init container that writes to the volume, a
// healthcheck with a generous timeout (the test counts unavailable replicas
// from Docker's exec and health events, so a probe slowed by a busy machine must not
// turn a replica unhealthy), and {{VERSION}} in the template, to roll it.
const crashSpec = `
name: {{SET}}
replicas: {{N}}
network: {{NET}}
serviceName: svc-{{SET}}
terminationGracePeriodSeconds: 2
updateStrategy:
  type: RollingUpdate
  rollingUpdate:
    maxUnavailable: 1
persistentVolumeClaimRetentionPolicy:
  whenScaled: Retain
  whenDeleted: Retain
template:
  image: {{IMAGE}}
  env:
    VERSION: "{{VERSION}}"
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 5s
    retries: 3
  initContainers:
    - name: prep
      image: {{IMAGE}}
      command: ["/web", "write", "/data/prep", "{{VERSION}}"]
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

// crashRun is one run of the crash test: its random source, what it killed,
// and the windows during which a rolling update was under way.
type crashRun struct {
	h       *harness
	rng     *rand.Rand
	seed    uint64
	kills   int
	version int
	// replicas is the count the set was last converged to.
	replicas int
	// updates are the [start, end] of each rolling update, in Unix nanoseconds.
	updates [][2]int64
	file    string
}

// The controller is SIGKILLed at random moments of rolling updates, scale-ups,
// scale-downs, undos and a down followed by an up, whether it is the command
// (up, scale, rollout undo, down) or ostset daemon, and started again each
// time; after each restart the set converges. Throughout, from Docker's own
// event stream: never two containers for one ordinal, never more than
// maxUnavailable replicas unavailable during an update, no volume of the set
// removed; after each kill the state directory parses; after each convergence
// the marker each replica wrote to its volume before the run is still there.
//
// OSTSET_CRASH_SEED replays a run (the seed is logged); OSTSET_CRASH_KILLS
// (default 50) is how many kills a run makes at least.
func TestCrashAnywhere(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("OSTSET_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("OSTSET_CRASH_SEED: %v", err)
		}
	}
	target := 50
	if s := os.Getenv("OSTSET_CRASH_KILLS"); s != "" {
		var err error
		if target, err = strconv.Atoi(s); err != nil || target < 1 {
			t.Fatalf("OSTSET_CRASH_KILLS %q: want a positive integer", s)
		}
	}
	t.Logf("seed %d (replay with OSTSET_CRASH_SEED=%d)", seed, seed)
	h := newHarness(t)
	r := &crashRun{h: h, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed: seed, version: 1, replicas: 3}
	stream := h.streamEvents()

	h.mustOstset("up", "-f", r.writeFile())
	for ord := range 3 {
		h.docker("exec", h.name(ord), "/web", "write", "/data/marker", "marker of "+h.name(ord))
	}
	ops := []struct {
		name string
		run  func()
	}{
		{"rolling update", r.rollingUpdate}, {"scale up", r.scaleUp}, {"scale down", r.scaleDown},
		{"undo", r.undo}, {"down and up", r.downUp}, {"update by the daemon", r.daemonUpdate},
		{"scale by the daemon", r.daemonScale},
	}
	for step := 0; r.kills < target; step++ {
		op := ops[r.rng.IntN(len(ops))]
		if step < len(ops) {
			op = ops[step] // every kind at least once
		}
		began, kills := time.Now(), r.kills
		op.run()
		t.Logf("%s: %d kills, %d replicas, %.1fs", op.name, r.kills-kills, r.replicas, time.Since(began).Seconds())
		r.checkConverged()
		if t.Failed() {
			r.diagnose()
			t.Fatalf("seed %d: failed after %d kills", seed, r.kills)
		}
	}
	evs := stream()
	r.checkEvents(evs)
	t.Logf("seed %d: %d kills, %d events, %d rolling updates", seed, r.kills, len(evs), len(r.updates))
}

// writeFile writes the set file for the run's replicas and version.
func (r *crashRun) writeFile() string {
	r.file = r.h.writeSpec(crashSpec, imageV1, "{{N}}", strconv.Itoa(r.replicas), "{{VERSION}}", strconv.Itoa(r.version))
	return r.file
}

// killed runs ostset with args again and again, each time SIGKILLing it after
// a random delay of up to a second if it has not ended by then, from 2 to 5 times;
// then it runs finish to completion. A run that ends by itself must succeed.
func (r *crashRun) killed(args []string, finish ...string) {
	r.h.t.Helper()
	r.killedOr(args, func(result) bool { return false }, finish...)
}

// killedOr is killed with fine saying which failures of a run that ended by
// itself are expected.
func (r *crashRun) killedOr(args []string, fine func(result) bool, finish ...string) {
	r.h.t.Helper()
	for range 2 + r.rng.IntN(4) {
		b := r.h.ostsetBackground(args...)
		select {
		case res := <-b.done:
			if res.code != 0 && !fine(res) {
				r.h.t.Fatalf("seed %d: ostset %v: %s", r.seed, args, res)
			}
		case <-time.After(time.Duration(r.rng.IntN(1000)) * time.Millisecond):
			_ = b.cmd.Process.Signal(syscall.SIGKILL)
			<-b.done
			r.kills++
			r.checkStateDir()
		}
	}
	r.h.mustOstset(append(finish, "--timeout", "3m")...)
}

// update runs fn as a rolling update: its window is checked for unavailable replicas.
func (r *crashRun) update(fn func()) {
	start := time.Now().UnixNano()
	fn()
	r.updates = append(r.updates, [2]int64{start, time.Now().UnixNano()})
}

func (r *crashRun) rollingUpdate() {
	r.update(func() {
		r.version++
		args := []string{"up", "-f", r.writeFile()}
		r.killed(args, args...)
	})
}

func (r *crashRun) scaleUp() {
	r.scale(min(r.replicas+1+r.rng.IntN(2), 4))
}

func (r *crashRun) scaleDown() {
	r.scale(max(r.replicas-1-r.rng.IntN(2), 1))
}

func (r *crashRun) scale(n int) {
	r.replicas = n
	args := []string{"scale", r.h.set, "--replicas", strconv.Itoa(n)}
	r.killed(args, args...)
}

// undo rolls back to the previous revision. A killed undo may not have been
// stored; the restart converges to whatever was, so the version is read back.
func (r *crashRun) undo() {
	r.update(func() {
		// After a down and up the history starts again, with one revision.
		noEarlier := func(res result) bool {
			return res.code == 2 && strings.Contains(res.stderr, "has no earlier revision to roll back to")
		}
		r.killedOr([]string{"rollout", "undo", r.h.set}, noEarlier, "reconcile", r.h.set)
	})
	r.syncVersion()
}

// downUp deletes the set (volumes kept), killing down, then brings it back
// with up, killing that too.
func (r *crashRun) downUp() {
	h := r.h
	for range 2 + r.rng.IntN(4) {
		b := h.ostsetBackground("down", h.set)
		select {
		case res := <-b.done:
			if res.code != 0 {
				h.t.Fatalf("seed %d: ostset down: %s", r.seed, res)
			}
		case <-time.After(time.Duration(r.rng.IntN(1000)) * time.Millisecond):
			_ = b.cmd.Process.Signal(syscall.SIGKILL)
			<-b.done
			r.kills++
			r.checkStateDir()
		}
		if h.ostset("status", h.set).code == 2 {
			break // deleted
		}
	}
	if h.ostset("status", h.set).code != 2 {
		h.mustOstset("down", h.set)
	}
	if names := h.replicaNames(); len(names) != 0 {
		h.t.Fatalf("seed %d: containers left after down: %v", r.seed, names)
	}
	args := []string{"up", "-f", r.writeFile()}
	r.killed(args, args...)
}

// daemonUpdate stores a new version without waiting and lets ostset daemon
// roll it out, killing the daemon and starting it again.
func (r *crashRun) daemonUpdate() {
	r.update(func() {
		r.version++
		r.withDaemon("up", "-f", r.writeFile(), "--wait=false")
	})
}

func (r *crashRun) daemonScale() {
	n := r.replicas + 1
	if n > 4 || r.rng.IntN(2) == 0 {
		n = max(r.replicas-1, 1)
	}
	r.replicas = n
	r.withDaemon("scale", r.h.set, "--replicas", strconv.Itoa(n), "--wait=false")
}

// withDaemon starts ostset daemon, stores a change with args, SIGKILLs the
// daemon after random delays from 2 to 5 times, starting it again each time,
// then waits for the set to converge under the last daemon and stops it.
func (r *crashRun) withDaemon(args ...string) {
	h := r.h
	d := h.startDaemon(nil)
	h.mustOstset(args...)
	for range 2 + r.rng.IntN(4) {
		time.Sleep(time.Duration(r.rng.IntN(1000)) * time.Millisecond)
		d.kill()
		r.kills++
		r.checkStateDir()
		d = h.startDaemon(nil)
	}
	h.mustOstset("reconcile", h.set, "--timeout", "3m")
	d.stop()
}

// syncVersion reads the version the set converged to from its replicas.
func (r *crashRun) syncVersion() {
	c := r.h.inspect(r.h.name(0))
	for _, e := range c.Config.Env {
		if v, ok := strings.CutPrefix(e, "VERSION="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				r.h.t.Fatalf("%s: VERSION=%q", r.h.name(0), v)
			}
			r.version = n
			r.writeFile()
			return
		}
	}
	r.h.t.Fatalf("%s has no VERSION", r.h.name(0))
}

// checkStateDir asserts that every file of the state directory that ostset
// reads parses (a kill must leave the old or the new file whole), and that
// ostset can read them.
func (r *crashRun) checkStateDir() {
	h := r.h
	h.t.Helper()
	for _, dir := range []string{"sets", "volume-use"} {
		paths, _ := filepath.Glob(filepath.Join(h.stateDir, dir, "*.json"))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil || !json.Valid(data) {
				h.t.Errorf("seed %d, kill %d: %s does not parse (%v):\n%s", r.seed, r.kills, p, err, data)
			}
		}
	}
	if res := h.ostset("get", "-o", "json"); res.code != 0 || !json.Valid([]byte(res.stdout)) {
		h.t.Errorf("seed %d, kill %d: ostset get after the kill: %s", r.seed, r.kills, res)
	}
}

// checkConverged asserts that the set runs exactly its replicas, each with
// its marker where one was written, and that its volumes are all there.
func (r *crashRun) checkConverged() {
	h := r.h
	h.t.Helper()
	h.checkReplicas(r.replicas)
	for ord := range min(r.replicas, 3) {
		if got, err := h.tryDocker("exec", h.name(ord), "/web", "cat", "/data/marker"); err != nil || got != "marker of "+h.name(ord) {
			h.t.Errorf("seed %d: the marker of %s: %q (%v)", r.seed, h.name(ord), got, err)
		}
	}
	for ord := range 3 {
		if _, err := h.tryDocker("volume", "inspect", "data-"+h.name(ord)); err != nil {
			h.t.Errorf("seed %d: volume data-%s is gone", r.seed, h.name(ord))
		}
	}
}

// diagnose logs what the engine and the state directory hold of the set.
func (r *crashRun) diagnose() {
	h := r.h
	out, _ := h.tryDocker("ps", "-a", "--filter", "label=io.ostset.set="+h.set, "--format",
		`{{.Names}} {{.ID}} {{.Status}} rev={{.Label "io.ostset.revision"}}`)
	h.t.Logf("containers:\n%s", out)
	for _, name := range h.replicaNames() {
		st, _ := h.tryDocker("inspect", "-f", "{{.State.Status}} exit={{.State.ExitCode}} oom={{.State.OOMKilled}} started={{.State.StartedAt}} finished={{.State.FinishedAt}} err={{.State.Error}}", name)
		logs, _ := h.tryDocker("logs", "--tail", "5", name)
		h.t.Logf("%s: %s\n%s", name, st, logs)
	}
	h.t.Logf("ostset events:\n%s", h.ostset("events", h.set).stdout)
}

// streamEvent is one event of the set's containers or volumes.
type streamEvent struct {
	at      int64 // Unix nanoseconds
	kind    string
	action  string
	id      string
	name    string
	ordinal string // replica containers only
	init    bool
	// execID and exitCode are an exec event's attributes.
	execID, exitCode string
}

// streamEvents records the set's container and volume events from Docker's
// own event stream until the returned function is called (a sentinel
// container created then marks the end, so every earlier event is seen).
func (h *harness) streamEvents() (stop func() []streamEvent) {
	h.t.Helper()
	sentinel := h.nextSentinel()
	cmd := h.dockerCommand(context.Background(), "events", "--since", time.Now().Add(-100*time.Millisecond).Format(time.RFC3339Nano),
		"--filter", "type=container", "--filter", "type=volume",
		"--format", `{{.TimeNano}}	{{.Type}}	{{.Action}}	{{.Actor.ID}}	{{index .Actor.Attributes "name"}}	{{index .Actor.Attributes "io.ostset.set"}}	{{index .Actor.Attributes "io.ostset.ordinal"}}	{{index .Actor.Attributes "io.ostset.init"}}	{{index .Actor.Attributes "execID"}}	{{index .Actor.Attributes "exitCode"}}`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	done := make(chan []streamEvent, 1)
	go func() {
		var got []streamEvent
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			f := strings.Split(lines.Text(), "\t")
			if len(f) != 10 {
				continue
			}
			if f[4] == sentinel && f[2] == "create" {
				break
			}
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			e := streamEvent{at: ns, kind: f[1], action: f[2], id: f[3], name: f[4], init: f[7] != "", execID: f[8], exitCode: f[9]}
			switch {
			case e.kind == "container" && f[5] == h.set:
				e.ordinal = f[6]
			case e.kind == "volume" && strings.HasPrefix(e.id, "data-"+h.set+"-"):
				e.name = e.id
			default:
				continue
			}
			got = append(got, e)
		}
		done <- got
	}()
	return func() []streamEvent {
		h.t.Helper()
		return awaitSentinel(h, cmd, sentinel, done)
	}
}

// checkEvents replays the run's events: never two live replica containers
// for one ordinal; no volume of the set destroyed; during each rolling update
// at most maxUnavailable (1) of the replicas available when it began
// unavailable at once (a replica is available from when it became ready,
// its healthcheck test passing once since it started (readiness), until it
// is killed, dies, turns unhealthy or is destroyed; one that is gone is
// unavailable).
func (r *crashRun) checkEvents(evs []streamEvent) {
	h := r.h
	live := map[string][]string{} // ordinal → replica container IDs
	avail := map[string]bool{}    // ordinal → available
	window := 0                   // the next or current rolling update
	ready := newReadiness(healthTest)
	var members []string // the ordinals available when it began
	for _, e := range evs {
		for window < len(r.updates) && e.at > r.updates[window][1] {
			window, members = window+1, nil
		}
		if window < len(r.updates) && e.at >= r.updates[window][0] && members == nil {
			members = []string{}
			for ord, ok := range avail {
				if ok {
					members = append(members, ord)
				}
			}
		}
		switch {
		case e.kind == "volume" && e.action == "destroy":
			h.t.Errorf("seed %d: volume %s destroyed", r.seed, e.name)
		case e.kind != "container" || e.init || e.ordinal == "":
		case ready.observe(e.action, e.id, e.execID, e.exitCode):
			avail[e.ordinal] = true
		case e.action == "create":
			live[e.ordinal] = append(live[e.ordinal], e.id)
			if len(live[e.ordinal]) > 1 {
				h.t.Errorf("seed %d: two containers for ordinal %s at %s: %v", r.seed, e.ordinal, stamp(e.at), live[e.ordinal])
			}
			avail[e.ordinal] = false
		case e.action == "destroy":
			live[e.ordinal] = slices.DeleteFunc(live[e.ordinal], func(id string) bool { return id == e.id })
			avail[e.ordinal] = false
		case e.action == "kill" || e.action == "die" || e.action == "stop" || e.action == "health_status: unhealthy":
			avail[e.ordinal] = false
		}
		if members == nil {
			continue
		}
		var down []string
		for _, ord := range members {
			if !avail[ord] {
				down = append(down, ord)
			}
		}
		if len(down) > 1 {
			h.t.Errorf("seed %d: ordinals %v unavailable at once during update %d, at %s (%s %s)", r.seed, down, window+1, stamp(e.at), e.action, e.name)
		}
	}
}

func stamp(ns int64) string { return time.Unix(0, ns).Format("15:04:05.000000") }
