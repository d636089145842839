//go:build integration

package integration

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/internal/faultproxy"
)

// The soak (`make soak`, not part of `make test`): one `ostset daemon` keeps 10
// sets while a seeded script churns them (replicas removed and killed behind
// its back, scales, rollout restart, undo and partition, down then up, the
// API cut for a few seconds). Churn comes in rounds; after each round the
// churn stops and every set must converge within soakConvergeBound. Throughout,
// the engine never holds two containers for one ordinal and no volume goes
// away. Every minute the daemon's RSS, goroutines and open files and the
// state directory's size are logged as a `soak sample` line.
//
//	OSTSET_SOAK_DURATION  how long to churn (the test is skipped without it), e.g. 60m
//	OSTSET_SOAK_SEED      replays a run (the seed is logged)
//	OSTSET_SOAK_ROUND     churn per round (default 4m)

const (
	soakSets          = 10
	soakConvergeBound = 3 * time.Minute
)

// newNamedHarness is a harness whose set is prefix+random, on a given state
// directory (several harnesses may share one).
func newNamedHarness(t *testing.T, prefix, stateDir string) *harness {
	t.Helper()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	h := &harness{t: t, set: prefix + hex.EncodeToString(b), stateDir: stateDir, dir: t.TempDir()}
	h.network = h.set + "-net"
	t.Cleanup(h.cleanup)
	return h
}

type soakSet struct {
	h        *harness
	file     string
	replicas int
	down     bool
}

func TestEfSoak(t *testing.T) {
	t.Parallel()
	total, err := time.ParseDuration(os.Getenv("OSTSET_SOAK_DURATION"))
	if err != nil || total <= 0 {
		t.Skip("OSTSET_SOAK_DURATION not set (make soak sets it)")
	}
	round := 4 * time.Minute
	if v := os.Getenv("OSTSET_SOAK_ROUND"); v != "" {
		if round, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("OSTSET_SOAK_SEED"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("soak: seed %d (OSTSET_SOAK_SEED replays it), %s in rounds of %s", seed, total, round)
	rng := mrand.New(mrand.NewPCG(seed, 0))

	stateDir := t.TempDir()
	dir, err := os.MkdirTemp("", "efp")
	if err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start("/var/run/docker.sock", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(); _ = os.RemoveAll(dir) })

	sets := make([]*soakSet, soakSets)
	for i := range sets {
		h := newNamedHarness(t, "efsk", stateDir)
		sets[i] = &soakSet{h: h, replicas: 2, file: h.writeSpec(daemonSpec(2), imageV1)}
	}
	lead := sets[0].h
	d := lead.startDaemon([]string{"DOCKER_HOST=" + p.Host()}, "--metrics-addr", "127.0.0.1:0", "--pprof", "--resync", "30s")
	addr := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/metrics`).FindStringSubmatch(d.out.String())
	if addr == nil {
		t.Fatalf("no metrics address in the daemon's log:\n%s", d.out)
	}
	for _, s := range sets {
		s.h.mustOstset("up", "-f", s.file, "--wait=false")
	}

	inv := newSoakInvariants(t, sets)
	stopGuard := inv.run()
	defer stopGuard()

	start := time.Now()
	sample := func() {
		pid := d.cmd.Process.Pid
		t.Logf("soak sample: t=%s rss_kb=%d goroutines=%d open_files=%d state_dir_bytes=%d",
			time.Since(start).Round(time.Second), rssKB(pid), goroutines(t, addr[1]), openFiles(pid), dirSize(stateDir))
	}
	sample()
	lastSample := time.Now()
	converge := func() {
		for _, s := range sets {
			if s.down {
				s.h.mustOstset("up", "-f", s.file, "--wait=false")
				s.down = false
			}
			s.h.mustOstset("rollout", "partition", s.h.set, "0", "--wait=false")
		}
		began := time.Now()
		for _, s := range sets {
			for !soakConverged(s) {
				if time.Since(began) > soakConvergeBound {
					t.Errorf("%s not converged %s after the churn stopped:\n%s", s.h.set, soakConvergeBound,
						s.h.ostset("status", s.h.set).stdout)
					break
				}
				time.Sleep(time.Second)
			}
		}
		t.Logf("soak: all sets converged %s after the churn stopped", time.Since(began).Round(100*time.Millisecond))
	}

	ops := 0
	for time.Since(start) < total {
		roundEnd := time.Now().Add(round)
		for time.Now().Before(roundEnd) && time.Since(start) < total {
			soakChurn(t, rng, p, sets)
			ops++
			time.Sleep(time.Duration(1500+rng.IntN(2500)) * time.Millisecond)
			if time.Since(lastSample) >= time.Minute {
				sample()
				lastSample = time.Now()
			}
		}
		converge()
		inv.check()
		sample()
		lastSample = time.Now()
	}
	stopGuard()
	t.Logf("soak: %d churn operations in %s", ops, time.Since(start).Round(time.Second))
	d.stop()
}

// soakChurn does one random thing to one random set.
func soakChurn(t *testing.T, rng *mrand.Rand, p *faultproxy.Proxy, sets []*soakSet) {
	s := sets[rng.IntN(len(sets))]
	h := s.h
	run := func(args ...string) {
		if r := h.ostset(args...); r.code != 0 {
			noCrash(t, r)
			t.Logf("soak: ostset %v: exit %d: %s", args, r.code, strings.TrimSpace(r.stderr))
		}
	}
	if s.down {
		run("up", "-f", s.file, "--wait=false")
		s.down = false
		return
	}
	switch op := rng.IntN(9); op {
	case 0: // the replica may be gone already: the engine's refusal is expected
		_, _ = h.tryDocker("rm", "-f", h.name(rng.IntN(s.replicas)))
	case 1:
		_, _ = h.tryDocker("kill", h.name(rng.IntN(s.replicas)))
	case 2:
		s.replicas = 1 + rng.IntN(3)
		s.file = h.writeSpec(daemonSpec(s.replicas), imageV1)
		run("scale", h.set, "--replicas", strconv.Itoa(s.replicas), "--wait=false")
	case 3:
		run("rollout", "restart", h.set, "--wait=false")
	case 4:
		run("rollout", "undo", h.set, "--wait=false")
	case 5:
		run("rollout", "partition", h.set, strconv.Itoa(rng.IntN(s.replicas+1)), "--wait=false")
	case 6:
		run("down", h.set)
		s.down = true
	case 7:
		p.Cut()
		time.Sleep(time.Duration(1+rng.IntN(4)) * time.Second)
		if err := p.Restore(); err != nil {
			t.Fatal(err)
		}
	case 8:
		img := imageV1
		if rng.IntN(2) == 0 {
			img = imageV2
		}
		s.file = h.writeSpec(daemonSpec(s.replicas), img)
		run("up", "-f", s.file, "--wait=false")
	}
}

// soakConverged: the set's replicas 0..n-1 exist, run and are ready, all at
// the update revision, and nothing else of the set exists.
func soakConverged(s *soakSet) bool {
	r := s.h.ostset("status", s.h.set, "-o", "json")
	if r.code != 0 {
		return false
	}
	var st struct {
		ReadyReplicas, UpdatedReplicas  int
		CurrentRevision, UpdateRevision string
		Containers                      []struct{ Name string }
	}
	if json.Unmarshal([]byte(r.stdout), &st) != nil {
		return false
	}
	n := s.replicas
	if st.ReadyReplicas != n || st.UpdatedReplicas != n || st.CurrentRevision != st.UpdateRevision || len(st.Containers) != n {
		return false
	}
	names := s.h.dockerLines("ps", "-a", "--filter", "label=io.ostset.set="+s.h.set, "--filter", "status=running", "--format", "{{.Names}}")
	return len(names) == n
}

// soakInvariants samples the engine every 2 s: never two containers for one
// ordinal; every volume once seen still there (all Retain, and down keeps them).
type soakInvariants struct {
	t       *testing.T
	sets    []*soakSet
	volumes map[string]bool
	errs    []string
	done    chan struct{}
	ended   chan struct{}
}

func newSoakInvariants(t *testing.T, sets []*soakSet) *soakInvariants {
	return &soakInvariants{t: t, sets: sets, volumes: map[string]bool{}, done: make(chan struct{}), ended: make(chan struct{})}
}

func (v *soakInvariants) sampleOnce() {
	for _, s := range v.sets {
		if dup := s.h.duplicateOrdinals(); dup != "" {
			v.errs = append(v.errs, s.h.set+": two containers for one ordinal: "+dup)
		}
	}
	present := map[string]bool{}
	for _, name := range v.sets[0].h.dockerLines("volume", "ls", "-q", "--filter", "name=efsk") {
		present[name] = true
	}
	for name := range v.volumes {
		if !present[name] {
			v.errs = append(v.errs, "volume lost: "+name)
			delete(v.volumes, name)
		}
	}
	for name := range present {
		for _, s := range v.sets {
			if strings.HasPrefix(name, "data-"+s.h.set+"-") {
				v.volumes[name] = true
			}
		}
	}
}

func (v *soakInvariants) run() (stop func()) {
	go func() {
		defer close(v.ended)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			v.sampleOnce()
			select {
			case <-v.done:
				return
			case <-tick.C:
			}
		}
	}()
	stopped := false
	return func() {
		if stopped {
			return
		}
		stopped = true
		close(v.done)
		<-v.ended
		v.check()
	}
}

// check reports the violations seen so far (only once the sampler stopped or
// between rounds, when it may still run: errs is only appended to).
func (v *soakInvariants) check() {
	select {
	case <-v.ended:
	default:
		return
	}
	for _, e := range v.errs {
		v.t.Error(e)
	}
	v.errs = nil
}

func rssKB(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return -1
}

func openFiles(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

func goroutines(t *testing.T, addr string) int {
	m := regexp.MustCompile(`goroutine profile: total (\d+)`).FindStringSubmatch(get(t, "http://"+addr+"/debug/pprof/goroutine?debug=1"))
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
