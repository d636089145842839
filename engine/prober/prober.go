// Package prober runs replicas' healthchecks while they start, for whoever
// drives a set (a waiting command, the daemon): the scheduling of ostset's
// own probes. When to probe and what a result means are health's rules
// (health.Probing); running a probe is the runtime's (Exec). A result
// reaches the planner only through the observation: the controller marks
// the replicas the prober passed (plan.Replica.Probed) before it plans.
//
// It imports engine/plan and health; never the engine, the state directory
// or the Docker SDK.
package prober

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/health"
)

// Exec runs probes: what the prober needs from a container engine.
type Exec interface {
	// ProbeHealth runs a container's healthcheck test once, bounded by the
	// healthcheck's timeout, and says whether it passed and its output. An
	// error means the test could not be run (the container is gone).
	ProbeHealth(ctx context.Context, set, id string, hc plan.Healthcheck) (bool, string, error)
	// EngineRunsHealthchecks tells whether the engine runs healthchecks itself.
	EngineRunsHealthchecks(ctx context.Context) bool
}

// Result is the prober's verdict on one container.
type Result struct {
	Ready    bool
	Since    time.Time // when the current run of readiness began
	Attempts int
	// Output is the output of the last failed probe.
	Output string
}

// Prober probes the replicas of the sets it is shown (Sync). It is safe for
// concurrent use. Its zero value is not usable: make one with New.
type Prober struct {
	exec Exec
	// OnChange, if set, is called (from a probing goroutine) when a
	// container's verdict changes, with its set: the daemon queues a pass.
	OnChange func(set string)
	Log      *slog.Logger
	// WhileStarting probes starting replicas also on an engine that runs
	// healthchecks itself (Docker), so that a replica is ready as soon as
	// its healthcheck first passes rather than one interval after it
	// started. Off, the prober runs only where the engine runs no
	// healthchecks (Podman without systemd), where it is the readiness.
	// The ostset command sets it from probe-starting, on by default.
	WhileStarting bool

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	byID   map[string]*worker
	wakes  map[string]chan struct{}
	now    func() time.Time
	// slots bounds the probes in flight at once across all containers, so
	// that many replicas starting together (a Parallel set) cannot load the
	// engine with execs: a probe waits for a slot.
	slots chan struct{}
}

// MaxInFlight is how many probes run at once at most, across all containers.
// Measured with 20 replicas starting at once on a loaded 2-core engine, 8
// noticed them ready sooner than 4 (start + 2 s -> ready, p50 about 15 %
// lower, docs/benchmarks.md): an exec waits on the engine more than it uses
// its CPU.
const MaxInFlight = 8

type worker struct {
	set string
	// started is the container's StartedAt when probing began; zero for a
	// container begun by Started, until an observation gives it.
	started time.Time
	hc      plan.Healthcheck
	seeded  bool // it began as passed (see Sync)
	cancel  context.CancelFunc
	done    chan struct{}
	res     Result
}

// New makes a prober that runs probes through exec until Close.
func New(exec Exec) *Prober {
	ctx, cancel := context.WithCancel(context.Background())
	return &Prober{exec: exec, ctx: ctx, cancel: cancel, byID: map[string]*worker{}, wakes: map[string]chan struct{}{}, now: time.Now,
		slots: make(chan struct{}, MaxInFlight)}
}

// Sync takes in an observation of set: it starts probing each running
// replica whose engine health is still "starting" and that carries a
// healthcheck (health.ProbeWanted), at most one prober per container, and
// stops probing the set's containers that no longer want it (gone, stopped,
// or the engine gave its own verdict); a container that started again
// (Replica.StartedAt) is probed anew.
//
// passed holds, by container ID, when a probe of the container's current
// run passed as recorded before (another process's, say): such a container
// starts as passed, so it is not made unready by a prober that has not
// probed yet, and, where the engine runs healthchecks, not probed again.
func (p *Prober) Sync(set string, replicas []plan.Replica, passed map[string]time.Time) {
	want := map[string]plan.Replica{}
	for _, r := range replicas {
		if health.ProbeWanted(r.State, r.Health, r.Healthcheck != nil) {
			want[r.ID] = r
		}
	}
	if !p.WhileStarting && len(want) > 0 && p.exec.EngineRunsHealthchecks(p.ctx) {
		want = nil // the engine's own healthcheck decides
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return
	}
	for id, w := range p.byID {
		r, ok := want[id]
		if ok && w.set == set && w.started.IsZero() && sameCheck(w.hc, *r.Healthcheck) {
			w.started = r.StartedAt // begun by Started: this is its run
			continue
		}
		if w.set == set && (!ok || !r.StartedAt.Equal(w.started)) { // gone, judged, or restarted
			w.cancel()
			delete(p.byID, id)
		}
	}
	for id, r := range want {
		if _, ok := p.byID[id]; ok {
			continue
		}
		since, ok := passed[id]
		p.begin(set, id, r.StartedAt, *r.Healthcheck, since, ok)
	}
}

// Started begins probing a container of set that this process has just
// created and started from a template with healthcheck hc (nil: the image's
// own), ahead of the set's next observation: when many replicas start in
// one pass, the first of them need not wait for the last before its first
// probe. The next observation takes it over as Sync would have begun it
// (with the healthcheck the container carries, if it differs).
func (p *Prober) Started(set, id string, hc *plan.Healthcheck) {
	if hc == nil || len(hc.Test) < 2 || hc.Test[0] != "CMD" && hc.Test[0] != "CMD-SHELL" {
		return // the image's own, or none: the observation says
	}
	if !p.WhileStarting && p.exec.EngineRunsHealthchecks(p.ctx) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byID[id]; ok || p.ctx.Err() != nil {
		return
	}
	p.begin(set, id, time.Time{}, *hc, time.Time{}, false)
}

// begin starts the prober of one container (p.mu held); passed says it
// passed at since before.
func (p *Prober) begin(set, id string, started time.Time, hc plan.Healthcheck, since time.Time, passed bool) {
	ctx, cancel := context.WithCancel(p.ctx)
	w := &worker{set: set, started: started, hc: hc, cancel: cancel, done: make(chan struct{}), seeded: passed}
	if passed {
		w.res = Result{Ready: true, Since: since}
	}
	p.byID[id] = w
	go p.run(ctx, w, id, hc, since)
}

// sameCheck tells whether two healthchecks run the same test with the same timing.
func sameCheck(a, b plan.Healthcheck) bool {
	return slices.Equal(a.Test, b.Test) && a.Interval == b.Interval && a.Timeout == b.Timeout &&
		a.Retries == b.Retries && a.StartPeriod == b.StartPeriod
}

// Results returns the verdicts on set's containers being probed, by ID.
func (p *Prober) Results(set string) map[string]Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]Result{}
	for id, w := range p.byID {
		if w.set == set && (w.seeded || w.res.Attempts > 0) { // a prober that has not probed has no verdict
			out[id] = w.res
		}
	}
	return out
}

// Wake returns a channel that receives (without blocking; coalesced) when
// a verdict on one of set's containers changes: a waiting loop selects on it.
func (p *Prober) Wake(set string) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.wakes[set]
	if !ok {
		ch = make(chan struct{}, 1)
		p.wakes[set] = ch
	}
	return ch
}

// InFlight is how many containers are being probed (finished probers of
// containers whose engine has not given its verdict yet included).
func (p *Prober) InFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byID)
}

// Close stops every probe and waits for them to end.
func (p *Prober) Close() {
	p.mu.Lock()
	p.cancel()
	ws := make([]*worker, 0, len(p.byID))
	for _, w := range p.byID {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		<-w.done
	}
}

// run probes one container, one probe at a time, as health.Probing says.
func (p *Prober) run(ctx context.Context, w *worker, id string, hc plan.Healthcheck, passed time.Time) {
	defer close(w.done)
	check := health.Check{Interval: hc.Interval, Timeout: hc.Timeout, Retries: hc.Retries, StartPeriod: hc.StartPeriod}
	pr := health.NewProbing(check, p.exec.EngineRunsHealthchecks(ctx), p.now())
	if !passed.IsZero() {
		pr.Passed(passed)
	}
	for {
		next, ok := pr.Next()
		if !ok {
			return
		}
		if d := next.Sub(p.now()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case p.slots <- struct{}{}:
		}
		start := p.now()
		passed, out, err := p.exec.ProbeHealth(ctx, w.set, id, hc)
		<-p.slots
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			out = err.Error() // a probe that cannot run fails; the next observation stops a gone container's
			p.log().Debug("probe", "set", w.set, "container", id, "err", err)
		}
		changed := pr.Record(passed, start, p.now())
		ready, since := pr.Ready()
		p.mu.Lock()
		w.res = Result{Ready: ready, Since: since, Attempts: pr.Attempts()}
		w.seeded = false
		if !passed {
			w.res.Output = out
		}
		p.mu.Unlock()
		if changed {
			p.changed(w.set)
		}
	}
}

// Changed wakes set's waiting loop and calls OnChange, as a verdict that
// changes does: for other probes of the same process (engine/liveness).
func (p *Prober) Changed(set string) { p.changed(set) }

func (p *Prober) changed(set string) {
	p.mu.Lock()
	ch, ok := p.wakes[set]
	if !ok {
		ch = make(chan struct{}, 1)
		p.wakes[set] = ch
	}
	p.mu.Unlock()
	select {
	case ch <- struct{}{}:
	default:
	}
	if p.OnChange != nil {
		p.OnChange(set)
	}
}

func (p *Prober) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.New(slog.DiscardHandler)
}
