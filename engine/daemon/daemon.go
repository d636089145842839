// Package daemon keeps every set of a state directory converged in one
// process: one Docker event subscription for all sets, a work queue that
// gives each set to one worker at a time, a cache of what the events said
// (so that a pass answering an event need not list the set again), and an
// inotify watch of the state directory for what other processes write. Each
// pass is the engine's (engine.Controller.Driver); the daemon only decides
// when. It imports the engine, never the other way, and never the Docker SDK:
// events come through engine.EventSource.
package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// Daemon keeps every set of the store converged: one Docker event subscription
// for all sets feeds a work queue keyed by set name, which a few workers drain,
// one pass per set at a time. Every set is also passed again at least every
// Resync, the safety net for anything an event did not say, and sooner when
// its plan asks (minReadySeconds, crash-loop back-off) or its rollout is in
// progress. Changes other processes make to the state directory wake the set
// through inotify.
type Daemon struct {
	Controller *engine.Controller
	// Events is the shared subscription; nil means none (resync only).
	Events engine.EventSource
	// Workers is how many sets are reconciled at once (default 4).
	Workers int
	// Resync is the longest a set goes without a pass (default 30s).
	Resync time.Duration
	// Metrics receives what the daemon does; nil records nothing.
	Metrics Metrics

	q       *workQueue
	obs     *observations
	mu      sync.Mutex
	sets    map[string]*setState
	watched *stateWatch
}

// Metrics is told what the daemon does, for monitoring.
type Metrics interface {
	// Pass: a pass of set ended, with the plan it executed (zero on error).
	Pass(set string, pl plan.Plan, err error)
	// Reacted: a replica create that a Docker event led to returned, d after
	// the daemon saw the event.
	Reacted(d time.Duration)
	// RuntimeError: a call to the container engine failed (op: observe, create, events, …).
	RuntimeError(op string)
	// Forget: the set is gone from the store.
	Forget(set string)
	// EngineGone: the engine cannot be reached (err, the reason), or is back
	// (nil).
	EngineGone(err error)
}

// setState is what the daemon keeps per set between passes.
type setState struct {
	driver  *engine.Driver
	backoff time.Duration
	hold    time.Time // no pass before this (backoff after a failure)
	seen    time.Time // earliest event not yet answered by a pass
}

const (
	defaultResync  = 30 * time.Second
	defaultWorkers = 4
	// permanentBackoffMax bounds the wait between passes that fail with a
	// PermanentError.
	permanentBackoffMax = time.Minute
	// eventBackoffMax bounds the wait between attempts to reopen the event stream.
	eventBackoffMax = 30 * time.Second
)

// Run runs the daemon until ctx ends. A pass in flight when ctx ends is
// finished (its Docker calls are bounded by the runtime's own timeouts), then
// Run returns nil.
func (d *Daemon) Run(ctx context.Context) error {
	c := d.Controller
	d.q = newWorkQueue()
	d.sets = map[string]*setState{}
	if d.Metrics != nil {
		c.Runtime = instrumented{Runtime: c.Runtime, m: d.Metrics}
	}
	d.obs = newObservations()
	c.Runtime = observing{Runtime: c.Runtime, o: d.obs}
	w, err := newStateWatch(c.Store)
	if err != nil {
		return err
	}
	d.watched = w
	c.Store.Saved = w.saved
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := w.run(wctx, d.stateChanged, func(err error) { d.log().Warn("state directory watch", "err", err) }); err != nil {
		return err
	}

	if c.Prober != nil { // a verdict of ostset's probe is answered by a pass, as an event is
		c.Prober.OnChange = d.q.add
	}
	go d.q.runLater()
	var wg sync.WaitGroup
	for range cmpOr(d.Workers, defaultWorkers) {
		wg.Go(func() { d.work(ctx) })
	}
	d.resyncAll()
	if d.Events != nil {
		wg.Go(func() { d.watchEvents(ctx) })
	}
	d.log().Info("daemon started", "stateDir", c.Store.Dir, "workers", cmpOr(d.Workers, defaultWorkers), "resync", d.resync())
	<-ctx.Done()
	d.log().Info("daemon stopping: finishing the passes in flight")
	d.q.shutDown()
	wg.Wait()
	return nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// log is the controller's logger, or one that discards.
func (d *Daemon) log() *slog.Logger {
	if d.Controller.Log != nil {
		return d.Controller.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (d *Daemon) resync() time.Duration { return cmpOr(d.Resync, defaultResync) }

// resyncAll queues every set of the store.
func (d *Daemon) resyncAll() {
	names, err := d.Controller.Store.List()
	if err != nil {
		d.log().Error("list sets", "err", err)
		return
	}
	for _, n := range names {
		d.q.add(n)
	}
}

func (d *Daemon) stateChanged(name string) {
	if name == "" {
		d.resyncAll()
		return
	}
	d.log().Debug("state file changed", "set", name)
	d.q.add(name)
}

// watchEvents keeps the shared event subscription open, reopening it with
// back-off when it fails. Events are missed while it is down, so every set is
// resynced each time it opens.
func (d *Daemon) watchEvents(ctx context.Context) {
	log := d.log()
	backoff := time.Duration(0)
	link := engineLink{tell: func(err error) {
		if d.Metrics != nil {
			d.Metrics.EngineGone(err)
		}
	}}
	for ctx.Err() == nil {
		events, err := d.Events.WatchSets(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			backoff = nextBackoff(backoff, eventBackoffMax)
			d.runtimeError("events")
			link.failed(log, err, backoff)
			if !sleepCtx(ctx, backoff) {
				return
			}
			continue
		}
		link.opened(log)
		log.Info("docker events subscribed; resyncing every set")
		d.obs.streaming(true)
		d.resyncAll()
		opened := time.Now()
		ok := d.drain(ctx, events)
		d.obs.streaming(false)
		if !ok {
			return
		}
		if time.Since(opened) > eventBackoffMax {
			backoff = 0 // it worked for a while: this is a new failure
		}
		backoff = nextBackoff(backoff, eventBackoffMax)
		d.runtimeError("events")
		log.Warn("docker event stream ended; reconnecting", "retryIn", backoff)
		if !sleepCtx(ctx, backoff) {
			return
		}
	}
}

// drain handles events until the stream ends (true) or ctx does (false).
func (d *Daemon) drain(ctx context.Context, events <-chan engine.SetEvent) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case e, ok := <-events:
			if !ok {
				return ctx.Err() == nil
			}
			d.event(e)
		}
	}
}

func nextBackoff(b, most time.Duration) time.Duration {
	return min(max(2*b, 500*time.Millisecond), most)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// event queues the set a Docker event is about, remembering when the first
// event not yet answered by a pass was seen (the reaction time starts there).
func (d *Daemon) event(e engine.SetEvent) {
	now := time.Now()
	if e.Set == "" {
		if e.Network != "" {
			// A network removed: any set may have a replica created on it
			// (whose start now fails) or planned for it; each is listed anew.
			d.log().Debug("docker event", "network", e.Network, "action", e.Action, "at", e.Time)
			names, err := d.Controller.Store.List()
			if err != nil {
				d.log().Error("list sets", "err", err)
			}
			for _, n := range names {
				d.obs.drop(n)
				d.q.add(n)
			}
		}
		return
	}
	if !d.Controller.Store.Has(e.Set) {
		return // another state directory's set (a new set of this one comes through the state watch)
	}
	d.mu.Lock()
	s := d.setLocked(e.Set)
	if s.seen.IsZero() {
		s.seen = now
	}
	d.mu.Unlock()
	d.obs.event(e)
	d.log().Debug("docker event", "set", e.Set, "container", e.Name, "action", e.Action, "at", e.Time)
	d.q.add(e.Set)
}

func (d *Daemon) setLocked(name string) *setState {
	s, ok := d.sets[name]
	if !ok {
		s = &setState{driver: d.Controller.Driver(name)}
		d.sets[name] = s
	}
	return s
}

func (d *Daemon) runtimeError(op string) {
	if d.Metrics != nil {
		d.Metrics.RuntimeError(op)
	}
}

func (d *Daemon) work(ctx context.Context) {
	for {
		name, ok := d.q.get()
		if !ok {
			return
		}
		d.process(ctx, name)
		d.q.done(name)
	}
}

// process runs one pass of a set and decides when the set is next due. The
// worker owns the set's setState while it runs (the queue gives a set to one
// worker at a time); d.mu guards only the map and the seen time.
func (d *Daemon) process(ctx context.Context, name string) {
	now := time.Now()
	d.mu.Lock()
	s := d.setLocked(name)
	if now.Before(s.hold) { // failing: events do not make it retry sooner
		d.mu.Unlock()
		d.q.addAfter(name, s.hold.Sub(now))
		return
	}
	seen := s.seen
	s.seen = time.Time{}
	d.mu.Unlock()

	// A pass that has begun is finished even if the daemon is asked to stop.
	pctx := context.WithoutCancel(ctx)
	if !seen.IsZero() {
		pctx = context.WithValue(pctx, eventSeenKey{}, seen)
	} else {
		// Only a pass that answers an event takes the kept observation: the
		// resync, a plan's timer and the rollout poll list the set, and see
		// what no event said (a network or volume changed by hand, a missed event).
		d.obs.drop(name)
	}
	pl, st, err := s.driver.Pass(pctx)
	d.obs.settle(name, err == nil && len(pl.Actions) == 0, !errors.Is(err, engine.ErrReplan))
	if d.Metrics != nil && !errors.Is(err, engine.ErrReplan) {
		d.Metrics.Pass(name, pl, err)
	}
	switch {
	case errors.Is(err, engine.ErrReplan):
		d.q.add(name)
	case errors.Is(err, state.ErrUnknownSet):
		d.log().Debug("set gone", "set", name)
		d.mu.Lock()
		delete(d.sets, name)
		d.mu.Unlock()
		d.obs.forget(name)
		if d.Metrics != nil {
			d.Metrics.Forget(name)
		}
	case err != nil && engine.IsPermanent(err):
		// The cause is outside ostset (a port another container holds): the
		// replica the engine refused is held back by the plan until its own
		// retry (State.Failures), so the set is not: an event of another of
		// its replicas is answered at once. The queue's back-off is only the
		// safety net should a failure not be recorded for a replica.
		s.backoff = nextBackoff(s.backoff, permanentBackoffMax)
		s.hold = time.Time{}
		d.log().Warn("pass failed", "set", name, "err", err, "retryIn", s.backoff)
		s.driver.Failed(err, s.backoff)
		d.q.addAfter(name, s.backoff)
	case err != nil:
		s.backoff = nextBackoff(s.backoff, 10*time.Second)
		s.hold = time.Now().Add(s.backoff)
		d.log().Warn("pass failed", "set", name, "err", err, "retryIn", s.backoff)
		s.driver.Failed(err, s.backoff)
		d.q.addAfter(name, s.backoff)
	default:
		s.backoff, s.hold = 0, time.Time{}
		s.driver.Succeeded()
		d.q.addAfter(name, d.nextPass(pl, st))
	}
}

// nextPass is how long a set may wait for its next pass without an event: at
// once after a pass that acted (it re-observes), at the time its plan asks for,
// every poll interval while its rollout is in progress (so the progress
// deadline counts watched time, see TrackProgress), else Resync.
func (d *Daemon) nextPass(pl plan.Plan, st state.State) time.Duration {
	if len(pl.Actions) > 0 {
		return 0
	}
	next := d.resync()
	if !pl.Complete && !st.Paused {
		next = min(next, d.Controller.PollInterval())
	}
	if !pl.RequeueAt.IsZero() {
		next = min(next, max(time.Until(pl.RequeueAt), 10*time.Millisecond))
	}
	return next
}

// eventSeenKey carries, in a pass's context, when the daemon saw the event the
// pass answers.
type eventSeenKey struct{}

// instrumented reports failed runtime calls and reaction times to metrics.
type instrumented struct {
	engine.Runtime
	m Metrics
}

func (r instrumented) count(op string, err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		r.m.RuntimeError(op)
	}
}

func (r instrumented) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	obs, err := r.Runtime.Observe(ctx, set, opts)
	r.count("observe", err)
	return obs, err
}

func (r instrumented) CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (engine.CreateResult, error) {
	res, err := r.Runtime.CreateReplica(ctx, spec)
	r.count("create", err)
	if seen, ok := ctx.Value(eventSeenKey{}).(time.Time); ok && err == nil && spec.Labels[plan.LabelInit] == "" {
		r.m.Reacted(time.Since(seen))
	}
	return res, err
}

func (r instrumented) StartReplica(ctx context.Context, set, id string) error {
	err := r.Runtime.StartReplica(ctx, set, id)
	r.count("start", err)
	return err
}

func (r instrumented) ConnectNetworks(ctx context.Context, set, id string, joins []plan.NetworkJoin) error {
	err := r.Runtime.ConnectNetworks(ctx, set, id, joins)
	r.count("connect", err)
	return err
}

func (r instrumented) StopReplica(ctx context.Context, set, id string, grace time.Duration) error {
	err := r.Runtime.StopReplica(ctx, set, id, grace)
	r.count("stop", err)
	return err
}

func (r instrumented) RemoveReplica(ctx context.Context, set, id string, grace time.Duration) error {
	err := r.Runtime.RemoveReplica(ctx, set, id, grace)
	r.count("remove", err)
	return err
}

func (r instrumented) RemoveVolume(ctx context.Context, set, name string) error {
	err := r.Runtime.RemoveVolume(ctx, set, name)
	r.count("remove_volume", err)
	return err
}

func (r instrumented) EnsureNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	id, err := r.Runtime.EnsureNetwork(ctx, name, labels)
	r.count("network", err)
	return id, err
}

func (r instrumented) RemoveNetwork(ctx context.Context, name string) (bool, error) {
	ok, err := r.Runtime.RemoveNetwork(ctx, name)
	r.count("remove_network", err)
	return ok, err
}
