package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Event is one thing the controller did or noticed, for progress output.
type Event struct {
	Time    time.Time `json:"time"`
	Set     string    `json:"set"`
	Replica string    `json:"replica,omitempty"`
	Message string    `json:"message"`
}

// Controller runs observe → plan → execute passes for sets.
type Controller struct {
	Runtime Runtime
	Store   Store
	Log     *slog.Logger
	// Report receives progress events; nil discards them.
	Report func(Event)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnPlan, if set, sees every plan a waiting loop makes, before it runs.
	OnPlan func(State, Plan)
	// Poll is how long a waiting loop sleeps without a Docker event (default 2s):
	// a safety net, since events wake the loop.
	Poll time.Duration

	// readySince remembers, per container ID, the earliest time a replica was
	// seen ready: Docker keeps only the last few probes, so the time it reports
	// slides forward and minReadySeconds longer than a few intervals would never pass.
	readySince sync.Map
	crashes    crashLoops
	// createdAt remembers when this process created a replica (by container ID),
	// more precise than Docker's creation time in seconds.
	createdAt sync.Map
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// emit reports an event and records it in the set's event log.
func (c *Controller) emit(set, replica, format string, args ...any) {
	e := Event{Time: c.now(), Set: set, Replica: replica, Message: fmt.Sprintf(format, args...)}
	if c.Report != nil {
		c.Report(e)
	}
	if err := c.Store.AppendEvent(e); err != nil {
		c.logger().Warn("event log", "set", set, "err", err)
	}
}

func (c *Controller) logger() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Pass runs one observe → plan → execute pass under the set's lock and returns
// the plan it executed.
func (c *Controller) Pass(ctx context.Context, name string) (Plan, error) {
	return c.pass(ctx, name, nil)
}

// pass is Pass with a hook that sees the plan before it is executed.
func (c *Controller) pass(ctx context.Context, name string, planned func(State, Plan)) (Plan, error) {
	unlock, err := c.Store.Lock(ctx, name)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	st, err := c.Store.Load(name)
	if err != nil {
		return Plan{}, err
	}
	if st.Deleting != nil {
		if err := c.finishDelete(ctx, st); err != nil {
			return Plan{}, err
		}
		return Plan{}, c.Store.Unknown(name)
	}
	if err := c.Store.TrimEvents(name); err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return Plan{}, err
	}
	c.rememberReadiness(obs.Replicas)
	plan := MakePlan(Input{
		Set:             st.Spec,
		CurrentRevision: st.CurrentRevision,
		UpdateRevision:  st.UpdateRevision,
		Paused:          st.Paused,
		Observed:        obs,
		Now:             c.now(),
		RecreateAfter:   c.crashes.backoff(name, obs.Replicas),
	})
	c.crashes.note(name, plan.Actions, c.now())
	if rolledBack, err := c.record(&st, &plan); err != nil {
		return plan, err
	} else if rolledBack {
		return plan, errReplan
	}
	if planned != nil {
		planned(st, plan)
	}
	for _, a := range plan.Actions {
		c.logger().Info("action", "set", name, "action", a.String())
	}
	before := maps.Clone(st.VolumeUse)
	err = c.execute(ctx, &st, plan.Actions)
	if !maps.Equal(before, st.VolumeUse) {
		err = errors.Join(err, c.Store.Save(st))
	}
	return plan, err
}

// record folds a plan into the set's state: the current revision, the observed
// generation, rollout progress and, past the progress deadline, an automatic
// rollback (after which the plan is stale and must not run). It saves on change.
func (c *Controller) record(st *State, plan *Plan) (rolledBack bool, err error) {
	now := c.now()
	before, _ := json.Marshal(st)
	st.CurrentRevision = plan.Status.CurrentRevision
	st.ObservedGeneration = st.Generation
	if plan.Complete {
		st.RollingBackFrom = ""
	}
	if st.TrackProgress(*plan, now) {
		c.emit(st.Spec.Name, "", "rollout to %s made no progress for %s", st.UpdateRevision, st.Spec.ProgressDeadline())
		if to, ok := st.AutoRollback(now); ok {
			c.emit(st.Spec.Name, "", "rolling back to %s", to)
			rolledBack = true
		}
	}
	plan.Status.ObservedGeneration = st.ObservedGeneration
	plan.Status.Conditions = Conditions(*st, *plan, now)
	if after, _ := json.Marshal(st); string(after) != string(before) {
		err = c.Store.Save(*st)
	}
	return rolledBack, err
}

// Status observes a set and returns its status without changing anything.
func (c *Controller) Status(ctx context.Context, name string) (Status, State, error) {
	st, err := c.Store.Load(name)
	if err != nil {
		return Status{}, st, err
	}
	_, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return Status{}, st, err
	}
	plan := MakePlan(Input{Set: st.Spec, CurrentRevision: st.CurrentRevision, UpdateRevision: st.UpdateRevision,
		Paused: st.Paused, Observed: obs, Now: c.now()})
	plan.Status.ObservedGeneration = st.ObservedGeneration
	plan.Status.Conditions = Conditions(st, plan, c.now())
	return plan.Status, st, nil
}

// Converge runs passes until the set's rollout is complete or ctx ends. Runtime
// failures are reported and retried with backoff; an unknown set is not, nor a
// set held by another state directory (an *OwnershipError): only a person can
// resolve that.
func (c *Controller) Converge(ctx context.Context, name string) error {
	return c.loop(ctx, name, true)
}

// Run keeps one set converged until ctx ends or the set is deleted.
func (c *Controller) Run(ctx context.Context, name string) error {
	return c.loop(ctx, name, false)
}

func (c *Controller) loop(ctx context.Context, name string, untilComplete bool) error {
	w := watcher{c: c, set: name}
	if err := w.subscribe(ctx); err != nil {
		// Passes report Docker failures with backoff; events are only a wake-up.
		c.logger().Warn("docker events", "set", name, "err", err)
	}
	p := progress{c: c, set: name}
	started := c.now()
	var first, last *State
	backoff := time.Duration(0)
	for {
		plan, err := c.pass(ctx, name, func(st State, plan Plan) {
			if first == nil {
				first = &st
			}
			last = &st
			p.observed(plan)
			if c.OnPlan != nil {
				c.OnPlan(st, plan)
			}
		})
		switch {
		case errors.Is(err, errReplan):
			continue
		case errors.Is(err, ErrUnknownSet):
			return err
		case ctx.Err() != nil:
			return p.timedOut(ctx.Err())
		case err != nil:
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
			p.failed(err, backoff)
		default:
			backoff, p.lastErr = 0, ""
			if plan.Complete && untilComplete {
				return rolledBackSince(first, last, started)
			}
			if err := heldElsewhere(name, plan); err != nil && untilComplete {
				return err
			}
			if len(plan.Actions) > 0 {
				continue
			}
		}
		if err := c.sleep(ctx, &w, plan.RequeueAt, backoff); err != nil {
			return p.timedOut(err)
		}
	}
}

// errReplan: the pass changed the update revision, so its plan must not run.
var errReplan = errors.New("update revision changed; plan again")

// rolledBackSince reports an automatic rollback (by this process or another) of
// the revision a wait started with.
func rolledBackSince(first, last *State, started time.Time) error {
	if first == nil || last == nil || last.LastRollback == nil {
		return nil
	}
	rb := last.LastRollback
	if rb.From != first.UpdateRevision || rb.At.Before(started) {
		return nil
	}
	return &RollbackError{Set: last.Spec.Name, From: rb.From, To: rb.To, Deadline: last.Spec.ProgressDeadline()}
}

// watcher holds the Docker event subscription of a loop, re-subscribing with
// backoff when the stream ends, so a stream that closes at once cannot spin.
type watcher struct {
	c     *Controller
	set   string
	wake  <-chan struct{}
	since time.Time // last subscribe attempt
}

func (w *watcher) subscribe(ctx context.Context) error {
	w.since = w.c.now()
	wake, err := w.c.Runtime.Watch(ctx, w.set)
	w.wake = wake
	return err
}

// channel is the event channel to wait on, re-subscribing first when the stream
// is down and the last attempt is older than the poll interval.
func (w *watcher) channel(ctx context.Context) <-chan struct{} {
	if w.wake == nil && w.c.now().Sub(w.since) >= w.c.poll() {
		if err := w.subscribe(ctx); err != nil {
			w.c.logger().Warn("docker events", "set", w.set, "err", err)
		}
	}
	return w.wake
}

// sleep waits for a Docker event on the set, the requeue time, the backoff, or
// the poll interval, whichever comes first.
func (c *Controller) sleep(ctx context.Context, w *watcher, requeueAt time.Time, backoff time.Duration) error {
	d := c.poll()
	wake := w.channel(ctx)
	if backoff > 0 {
		d = backoff
		wake = nil // a failing Docker call is not retried faster because events arrive
	}
	if !requeueAt.IsZero() {
		d = min(d, max(requeueAt.Sub(c.now()), 10*time.Millisecond))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case _, open := <-wake:
		if !open {
			w.wake = nil // the stream ended (Docker restarted, say); poll until it is back
		}
	case <-t.C:
	}
	return nil
}

func (c *Controller) poll() time.Duration {
	if c.Poll > 0 {
		return c.Poll
	}
	return 2 * time.Second
}

// progress turns successive plans into one line per change: a replica that became
// ready, a new reason to wait, an error.
type progress struct {
	c *Controller
	// readySeen is nil until the first plan, whose ready replicas are not news.
	set       string
	readySeen map[string]bool
	waiting   []string
	lastErr   string
}

func (p *progress) observed(plan Plan) {
	first := p.readySeen == nil
	if first {
		p.readySeen = map[string]bool{}
	}
	for _, cs := range plan.Status.Containers {
		if cs.Ready && !p.readySeen[cs.ID] {
			p.readySeen[cs.ID] = true
			if !first {
				p.c.emit(p.set, cs.Name, "%s ready (%s)", cs.Name, p.c.now().Sub(p.c.created(cs)).Round(100*time.Millisecond))
			}
		}
		if !cs.Ready {
			delete(p.readySeen, cs.ID)
		}
	}
	if !slices.Equal(plan.Status.Waiting, p.waiting) {
		for _, w := range plan.Status.Waiting {
			if !slices.Contains(p.waiting, w) {
				p.c.emit(p.set, "", "waiting: %s", w)
			}
		}
		p.waiting = plan.Status.Waiting
	}
}

func (p *progress) failed(err error, retry time.Duration) {
	if msg := err.Error(); msg != p.lastErr {
		p.lastErr = msg
		p.c.emit(p.set, "", "error: %s (retrying every %s at most)", msg, retry.Round(time.Millisecond))
	}
}

func (c *Controller) created(cs ContainerStatus) time.Time {
	if t, ok := c.createdAt.Load(cs.ID); ok {
		return t.(time.Time)
	}
	return cs.Created
}

// RollbackError says that a rollout missed its progress deadline and was rolled
// back automatically; a waiting command reports it once the rollback completes.
type RollbackError struct {
	Set, From, To string
	Deadline      time.Duration
}

func (e *RollbackError) Error() string {
	return fmt.Sprintf("rollout of %s to %s made no progress for %s and was rolled back to %s", e.Set, e.From, e.Deadline, e.To)
}

// rememberReadiness replaces each ready replica's ReadySince by the earliest one
// seen while it stayed ready, and forgets replicas that are not ready.
func (c *Controller) rememberReadiness(rs []Replica) {
	for i := range rs {
		r := &rs[i]
		if r.ReadySince.IsZero() {
			c.readySince.Delete(r.ID)
			continue
		}
		if t, ok := c.readySince.Load(r.ID); ok && t.(time.Time).Before(r.ReadySince) {
			r.ReadySince = t.(time.Time)
		} else {
			c.readySince.Store(r.ID, r.ReadySince)
		}
	}
}

// timedOut adds to a deadline error what the set was last stuck on.
func (p *progress) timedOut(err error) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	switch {
	case p.lastErr != "":
		return fmt.Errorf("%w: last error: %s", err, p.lastErr)
	case len(p.waiting) > 0:
		return fmt.Errorf("%w: waiting for %s", err, strings.Join(p.waiting, "; "))
	}
	return err
}
