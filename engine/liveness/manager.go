package liveness

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// Runtime is what the liveness probes need from a container engine.
type Runtime interface {
	// ProbeHealth runs a test in a container once, bounded by hc.Timeout,
	// and says whether it passed and its output (prober.Exec's).
	ProbeHealth(ctx context.Context, set, id string, hc plan.Healthcheck) (bool, string, error)
	// RestartReplica restarts a running container of the set in place: a
	// stop with grace, then a start of the same container.
	RestartReplica(ctx context.Context, set, id string, grace time.Duration) error
}

// Clock is the time the manager runs on (a fake one in tests).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Want is a container to probe: its probes and where its run stands.
type Want struct {
	Set               string
	Startup, Liveness *Spec
	// Started is when the run began; StartupPassed when its startup probe
	// passed as recorded (zero: not yet).
	Started, StartupPassed time.Time
}

// Result is the manager's verdict on one container.
type Result struct {
	// StartupPassed is when the startup probe passed (zero while it has not).
	StartupPassed time.Time
	// Failed is why the container is to be restarted; "" while it is not.
	Failed   string
	Attempts int
}

// Manager probes the containers it is shown (Sync), one goroutine per
// container and one probe at a time each. It is safe for concurrent use;
// make one with New.
type Manager struct {
	rt Runtime
	// OnChange, if set, is called (from a probing goroutine) when a verdict
	// changes or a held-back restart is due, with the container's set: the
	// driving loop runs a pass.
	OnChange func(set string)
	Log      *slog.Logger

	clock  Clock
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	byID   map[string]*worker
	wg     sync.WaitGroup
	timers map[string]time.Time // set → the wake-up already scheduled
}

type worker struct {
	want   Want
	cancel context.CancelFunc
	res    Result
}

// New makes a manager that probes through rt until Close; clock nil is the
// real clock.
func New(rt Runtime, clock Clock) *Manager {
	if clock == nil {
		clock = realClock{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{rt: rt, clock: clock, ctx: ctx, cancel: cancel, byID: map[string]*worker{}, timers: map[string]time.Time{}}
}

// Waking sets OnChange and returns m.
func (m *Manager) Waking(onChange func(set string)) *Manager {
	m.OnChange = onChange
	return m
}

// Sync takes in what set wants probed now (container ID → Want): a container
// not probed yet is probed from its Want, one no longer wanted (gone,
// stopped) is not probed any more.
func (m *Manager) Sync(set string, want map[string]Want) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return
	}
	for id, w := range m.byID {
		if _, ok := want[id]; w.want.Set == set && !ok {
			w.cancel()
			delete(m.byID, id)
		}
	}
	for id, wt := range want {
		if _, ok := m.byID[id]; ok {
			continue
		}
		ctx, cancel := context.WithCancel(m.ctx)
		pr := NewProbing(wt.Startup, wt.Liveness, wt.Started, wt.StartupPassed)
		w := &worker{want: wt, cancel: cancel, res: Result{StartupPassed: pr.StartupPassed()}}
		if wt.Startup == nil {
			w.res.StartupPassed = time.Time{} // nothing to record
		}
		m.byID[id] = w
		m.wg.Add(1)
		go m.run(ctx, w, id, pr)
	}
}

// Forget stops probing a container, so that the next Sync probes it anew:
// after it was restarted, its run is a new one.
func (m *Manager) Forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.byID[id]; ok {
		w.cancel()
		delete(m.byID, id)
	}
}

// Results returns the verdicts on set's containers, by ID.
func (m *Manager) Results(set string) map[string]Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]Result{}
	for id, w := range m.byID {
		if w.want.Set == set {
			out[id] = w.res
		}
	}
	return out
}

// WakeAt has OnChange called for set at t (once per set and time): a
// restart that the back-off holds back is due then.
func (m *Manager) WakeAt(set string, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil || m.timers[set].Equal(t) {
		return
	}
	m.timers[set] = t
	d := t.Sub(m.clock.Now())
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		select {
		case <-m.ctx.Done():
		case <-m.clock.After(d):
			m.changed(set)
		}
	}()
}

// Close stops every probe and waits for them to end.
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// run probes one container run as Probing says, until it has nothing left
// to probe or is stopped.
func (m *Manager) run(ctx context.Context, w *worker, id string, pr *Probing) {
	defer m.wg.Done()
	for {
		next, spec, ok := pr.Next()
		if !ok {
			return
		}
		if d := next.Sub(m.clock.Now()); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-m.clock.After(d):
			}
		}
		if ctx.Err() != nil {
			return
		}
		start := m.clock.Now()
		hc := plan.Healthcheck{Test: spec.Test, Timeout: spec.Timeout}
		passed, out, err := m.rt.ProbeHealth(ctx, w.want.Set, id, hc)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			out = err.Error() // a probe that cannot run fails; a gone container is dropped by the next Sync
			m.log().Debug("liveness probe", "set", w.want.Set, "container", id, "err", err)
		}
		changed := pr.Record(passed, out, start, m.clock.Now())
		m.mu.Lock()
		w.res.Attempts, w.res.Failed = pr.Attempts(), pr.Failed()
		if w.want.Startup != nil {
			w.res.StartupPassed = pr.StartupPassed()
		}
		m.mu.Unlock()
		if changed {
			m.changed(w.want.Set)
		}
	}
}

func (m *Manager) changed(set string) {
	if m.OnChange != nil {
		m.OnChange(set)
	}
}

func (m *Manager) log() *slog.Logger {
	if m.Log != nil {
		return m.Log
	}
	return slog.New(slog.DiscardHandler)
}
