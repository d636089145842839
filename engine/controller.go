package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
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
	unlock, err := c.Store.Lock(name)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	st, err := c.Store.Load(name)
	if err != nil {
		return Plan{}, err
	}
	if err := c.Store.TrimEvents(name); err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
	}
	obs, err := c.Runtime.Observe(ctx, name, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return Plan{}, err
	}
	plan := MakePlan(Input{
		Set:             st.Spec,
		CurrentRevision: st.CurrentRevision,
		UpdateRevision:  st.UpdateRevision,
		Paused:          st.Paused,
		Observed:        obs,
		Now:             c.now(),
	})
	if rb, err := c.record(&st, &plan); rb != nil || err != nil {
		return plan, errors.Join(rb, err)
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
func (c *Controller) record(st *State, plan *Plan) (rolledBack *RollbackError, err error) {
	now := c.now()
	before, _ := json.Marshal(st)
	st.CurrentRevision = plan.Status.CurrentRevision
	st.ObservedGeneration = st.Generation
	if plan.Complete {
		st.RollingBackFrom = ""
	}
	if st.TrackProgress(*plan, now) {
		c.emit(st.Spec.Name, "", "rollout to %s made no progress for %s", st.UpdateRevision, st.Spec.ProgressDeadline())
		from := st.UpdateRevision
		if to, ok := st.AutoRollback(now); ok {
			c.emit(st.Spec.Name, "", "rolling back to %s", to)
			rolledBack = &RollbackError{Set: st.Spec.Name, From: from, To: to, Deadline: st.Spec.ProgressDeadline()}
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
	obs, err := c.Runtime.Observe(ctx, name, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
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
// failures are reported and retried with backoff; an unknown set is not.
func (c *Controller) Converge(ctx context.Context, name string) error {
	return c.loop(ctx, name, true)
}

// Run keeps one set converged until ctx ends or the set is deleted.
func (c *Controller) Run(ctx context.Context, name string) error {
	return c.loop(ctx, name, false)
}

func (c *Controller) loop(ctx context.Context, name string, untilComplete bool) error {
	wake, err := c.Runtime.Watch(ctx, name)
	if err != nil {
		return err
	}
	p := progress{c: c, set: name}
	var rolledBack *RollbackError
	backoff := time.Duration(0)
	for {
		plan, err := c.pass(ctx, name, func(st State, plan Plan) {
			p.observed(plan)
			if c.OnPlan != nil {
				c.OnPlan(st, plan)
			}
		})
		if errors.As(err, &rolledBack) {
			continue // plan again, for the revision rolled back to
		}
		switch {
		case errors.Is(err, ErrUnknownSet):
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
			p.failed(err, backoff)
		default:
			backoff = 0
			if plan.Complete && untilComplete {
				if rolledBack != nil {
					return rolledBack
				}
				return nil
			}
			if len(plan.Actions) > 0 {
				continue
			}
		}
		open, err := c.sleep(ctx, wake, plan.RequeueAt, backoff)
		if err != nil {
			return err
		}
		if !open {
			// The event stream ended (Docker restarted, say): subscribe again, and
			// poll meanwhile if that fails too.
			if wake, err = c.Runtime.Watch(ctx, name); err != nil {
				p.failed(err, c.poll())
			}
		}
	}
}

// sleep waits for a Docker event on the set, the requeue time, the backoff, or
// the poll interval, whichever comes first. It reports false when the event
// stream has closed.
func (c *Controller) sleep(ctx context.Context, wake <-chan struct{}, requeueAt time.Time, backoff time.Duration) (bool, error) {
	d := c.poll()
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
		return true, ctx.Err()
	case _, open := <-wake:
		return open, nil
	case <-t.C:
		return true, nil
	}
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
	p.lastErr = ""
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
