package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// StoppedError is a wait that ended before the rollout completed: its deadline
// passed (Cause is context.DeadlineExceeded) or it was interrupted
// (context.Canceled). The rollout itself is not undone.
type StoppedError struct {
	Set    string
	Cause  error
	Where  string // how far the rollout got
	Detail string // what it was waiting for
}

func (e *StoppedError) Error() string {
	msg := e.Cause.Error()
	for _, s := range []string{e.Where, e.Detail} {
		if s != "" {
			msg += "; " + s
		}
	}
	return msg
}

func (e *StoppedError) Unwrap() error { return e.Cause }

// RollbackError says that a rollout missed its progress deadline and was rolled
// back automatically; a waiting command reports it once the rollback completes.
type RollbackError struct {
	Set, From, To string
	Deadline      time.Duration
}

func (e *RollbackError) Error() string {
	return fmt.Sprintf("rollout of %s to %s made no progress for %s and was rolled back to %s", e.Set, e.From, e.Deadline, e.To)
}

// Converge runs passes until the set's rollout is complete or ctx ends. Runtime
// failures are reported and retried with backoff; an unknown set is not, nor a
// set held by another state directory (an *OwnershipError): only a person can
// resolve that. It is ConvergeTo for whatever revision the set rolls out.
func (c *Controller) Converge(ctx context.Context, name string) error {
	return c.ConvergeTo(ctx, name, "")
}

// ConvergeTo is the wait of a command: it opens a new progress window (see
// beginWait) and runs passes until the set's rollout is complete or ctx ends.
// revision, if set, is the update revision the command made: once another
// replaces it (not an automatic rollback of it), the wait ends with a
// *SupersededError.
func (c *Controller) ConvergeTo(ctx context.Context, name, revision string) error {
	start, err := c.beginWait(ctx, name)
	if err != nil {
		return err
	}
	return c.loop(ctx, &turns{c: c, name: name, p: &progress{c: c, set: name},
		wt: &wait{revision: revision, start: start.UpdateRevision, started: c.now()}}, start)
}

// Run keeps one set converged until ctx ends or the set is deleted.
func (c *Controller) Run(ctx context.Context, name string) error {
	start, err := c.Store.Load(name)
	if err != nil {
		return err
	}
	return c.loop(ctx, &turns{c: c, name: name, p: &progress{c: c, set: name}}, start)
}

// loop runs the turns t until ctx ends or t's wait ends (see turns.run), and
// turns the set's deletion meanwhile into a *DeletedError: start is the set's
// state when the wait began.
func (c *Controller) loop(ctx context.Context, t *turns, start state.State) error {
	t.w = watcher{c: c, set: t.name}
	if err := t.w.subscribe(ctx); err != nil {
		// Passes report Docker failures with backoff; events are only a wake-up.
		c.logger().Warn("docker events", "set", t.name, "err", err)
	}
	return deletedSince(t.name, start, t.run(ctx))
}

// wait is what a command waits for, from when.
type wait struct {
	// revision is the update revision the command made ("": whatever the set
	// rolls out).
	revision string
	// start is the update revision when the wait began, and started when: an
	// automatic rollback of it since then ends the wait with a *RollbackError.
	start   string
	started time.Time
}

// beginWait opens a new progress window for a command's wait, as a new spec
// or kubectl rollout restart resets a Deployment's Progressing condition:
// the progress deadline counts from this wait's first pass, not from a mark
// an earlier command left (one already late would fail this wait at once). It
// returns the set's state the wait begins with.
func (c *Controller) beginWait(ctx context.Context, name string) (state.State, error) {
	st, err := c.Store.Load(name)
	reopen := func(st *state.State) bool {
		reopened := st.ReopenProgress()
		return st.RetryRefused() || reopened // a refused replica is tried at once
	}
	if err != nil || st.Deleting != nil || !reopen(&st) {
		return st, err // nothing to reopen (a change just did): no lock taken
	}
	st, unlock, err := c.Store.LockAndLoad(ctx, name)
	if err != nil {
		return st, err
	}
	defer unlock()
	if st.Deleting == nil && reopen(&st) {
		err = c.Store.Save(st)
	}
	return st, err
}

// deletedSince turns ErrUnknownSet, met by a wait that began with the set's
// state start, into a *DeletedError: the set was there when the wait began.
func deletedSince(name string, start state.State, err error) error {
	if errors.Is(err, state.ErrUnknownSet) {
		return &DeletedError{Set: name, Finished: start.Deleting != nil}
	}
	return err
}

// DeletedError ends a wait whose set was deleted meanwhile. Finished: the set
// was already being deleted when the wait began (an interrupted ostset down),
// and the wait's passes finished the delete.
type DeletedError struct {
	Set      string
	Finished bool
}

func (e *DeletedError) Error() string {
	if e.Finished {
		return "the interrupted delete of " + e.Set + " was finished"
	}
	return e.Set + " was deleted (ostset down) while this command waited for its rollout"
}

// turns is the one loop behind every wait (ConvergeTo, Follow) and Run. Each
// turn looks at the set once: by a pass, which acts, or, while a daemon drives
// the set, by a view, which does not (following: see Follow); it reports what
// it saw through p, and the loop ends once the wait wt ends (never, for a nil
// wt: Run) or ctx ends. Between turns it sleeps until a Docker event of the
// set, the time the plan asks for, the back-off after a failure or the poll.
type turns struct {
	c    *Controller
	name string
	w    watcher
	p    *progress
	wt   *wait
	// following: a daemon drives the set (daemon is its pid once seen), and
	// after is the number of the last line of the set's event log relayed.
	following bool
	daemon    int
	after     int64
}

func (t *turns) run(ctx context.Context) error {
	backoff := time.Duration(0)
	for {
		if t.following && t.daemonStopped() {
			backoff = 0 // the loop drives the set from here on
		}
		pl, st, err := t.turn(ctx)
		switch {
		case errors.Is(err, ErrReplan):
			continue
		case errors.Is(err, state.ErrUnknownSet):
			return err
		case ctx.Err() != nil:
			return t.p.stopped(ctx.Err())
		case err != nil && !t.following && t.wt != nil && IsPermanent(err):
			// A retry would fail the same way until a person changes the set
			// or the host: say so now, with the engine's words, rather than
			// at the deadline. (Run, the daemon's way, keeps retrying.)
			return &FailedError{Set: t.name, Failures: permanentFailures(err)}
		case err != nil && !t.following && t.wt != nil && state.IsStateDirFull(err):
			return err // waiting frees no space (the daemon keeps retrying)
		case err != nil:
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
			t.p.failed(err, backoff)
		default:
			backoff = 0
			t.p.succeeded()
			if t.following {
				t.saw(st, pl) // a pass reported its plan before it acted
			}
			if done, err := t.ends(ctx, pl, st); done {
				return err
			}
			if !t.following && len(pl.Actions) > 0 {
				continue
			}
		}
		if err := t.c.sleep(ctx, &t.w, pl.RequeueAt, backoff); err != nil {
			return t.p.stopped(err)
		}
	}
}

// turn looks at the set once: a pass, or, following, a view and then the
// lines the daemon recorded meanwhile. What the view shows the daemon did, it
// recorded just before: relaying after the view keeps the daemon's lines ahead
// of what they caused.
func (t *turns) turn(ctx context.Context) (plan.Plan, state.State, error) {
	if !t.following {
		return t.c.pass(ctx, t.name, t.saw)
	}
	st, pl, err := t.c.view(ctx, t.name)
	t.relay()
	return pl, st, err
}

// saw reports a plan, and shows it to OnPlan.
func (t *turns) saw(st state.State, pl plan.Plan) {
	t.p.observed(pl)
	if t.c.OnPlan != nil {
		t.c.OnPlan(st, pl)
	}
}

// ends says whether the wait ends with this turn's plan and state, and with
// what error: the rollout is complete, late, superseded or rolled back (see
// wait.finished), the set is held by another state directory, or it cannot go
// on (a driving wait: names held by containers that are not the set's; a
// following one: permanent failures the daemon recorded since the wait began,
// which the daemon goes on retrying).
func (t *turns) ends(ctx context.Context, pl plan.Plan, st state.State) (bool, error) {
	if t.wt == nil {
		return false, nil
	}
	if !t.following {
		if done, err := t.wt.finished(t.name, pl, st); done {
			return true, err
		}
		if err := heldElsewhere(t.name, pl); err != nil {
			return true, err
		}
		err := blockedByConflict(t.name, pl)
		return err != nil, err
	}
	// A newer revision ends the wait whether or not the daemon read it.
	if err := t.wt.superseded(st); err != nil {
		t.relay()
		return true, err
	}
	// The daemon has read the change (a pass recorded this generation):
	// only then is a complete plan its rollout's end.
	if st.ObservedGeneration >= st.Generation {
		if done, err := t.wt.finished(t.name, pl, st); done {
			t.c.awaitPass(ctx, t.name)
			t.relay()
			t.p.sayUnrecorded()
			return true, err
		}
	}
	if err := heldElsewhere(t.name, pl); err != nil {
		return true, err
	}
	err := failedSince(t.name, st, t.wt.started)
	return err != nil, err
}

// finished says whether the wait for the set's rollout ends with this plan: its
// revision was superseded (*SupersededError), the rollout is complete (with a
// *RollbackError if it was rolled back since the wait began), or it passed its
// progress deadline without a rollback (*DeadlineError).
func (w *wait) finished(name string, pl plan.Plan, st state.State) (bool, error) {
	if err := w.superseded(st); err != nil {
		return true, err
	}
	if pl.Complete {
		return true, rolledBackSince(w.start, st, w.started)
	}
	if st.Progress.Late && st.RollingBackFrom == "" {
		return true, &DeadlineError{Set: name, Revision: st.UpdateRevision, Deadline: st.Spec.ProgressDeadline(), Waiting: pl.Status.Waiting}
	}
	return false, nil
}

// superseded returns a *SupersededError when the revision the wait is for is
// no longer the set's update revision, unless an automatic rollback of it
// since the wait began made the change (that wait ends with the rollback's
// *RollbackError once the rollback completes).
func (w *wait) superseded(st state.State) error {
	if w.revision == "" || st.UpdateRevision == w.revision {
		return nil
	}
	if rb := st.LastRollback; rb != nil && rb.From == w.revision && rb.To == st.UpdateRevision && !rb.At.Before(w.started) {
		return nil
	}
	e := &SupersededError{Set: st.Spec.Name, Revision: w.revision, By: st.UpdateRevision}
	if r, ok := st.Revision(st.UpdateRevision); ok {
		e.Number, e.Cause, e.PID = r.Number, r.ChangeCause, r.PID
	}
	return e
}

// SupersededError ends the wait of a command whose revision another replaced
// before its rollout completed (another ostset up, rollout restart or undo),
// as kubectl rollout status --revision fails when a newer rollout starts. The
// set goes on to the newer revision; the wait of the command that made it
// reports that rollout.
type SupersededError struct {
	Set, Revision string
	// By is the revision that replaced it, Number its number in the history,
	// Cause and PID the command that made it, as far as the history says.
	By     string
	Number int
	Cause  string
	PID    int
}

func (e *SupersededError) Error() string {
	msg := fmt.Sprintf("rollout of %s to %s was superseded by revision %s", e.Set, e.Revision, e.By)
	var who []string
	if e.Number > 0 {
		who = append(who, fmt.Sprintf("number %d", e.Number))
	}
	if e.Cause != "" {
		who = append(who, fmt.Sprintf("%q", e.Cause))
	}
	if e.PID > 0 {
		who = append(who, fmt.Sprintf("pid %d", e.PID))
	}
	if len(who) > 0 {
		msg += " (" + strings.Join(who, ", ") + ")"
	}
	return msg + " before it completed"
}

// ErrReplan is a pass's error when the pass changed the update revision, so
// its plan must not run: the caller passes again.
var ErrReplan = errors.New("update revision changed; plan again")

// rolledBackSince reports an automatic rollback (by this process or another),
// since the wait started, of the revision the wait started with.
func rolledBackSince(startRevision string, st state.State, started time.Time) error {
	rb := st.LastRollback
	if rb == nil || rb.From != startRevision || rb.At.Before(started) {
		return nil
	}
	return &RollbackError{Set: st.Spec.Name, From: rb.From, To: rb.To, Deadline: st.Spec.ProgressDeadline()}
}

// DeadlineError says that a rollout passed its progress deadline and was not
// rolled back; a waiting command stops with it, as kubectl rollout status does.
type DeadlineError struct {
	Set, Revision string
	Deadline      time.Duration
	Waiting       []string
}

func (e *DeadlineError) Error() string {
	msg := fmt.Sprintf("rollout of %s to %s made no progress for %s (progressDeadlineSeconds)", e.Set, e.Revision, e.Deadline)
	if len(e.Waiting) > 0 {
		msg += ": waiting for " + strings.Join(e.Waiting, "; ")
	}
	return msg
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
	probed := c.probeWake(w.set)
	if backoff > 0 {
		probed = nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case _, open := <-wake:
		if !open {
			w.wake = nil // the stream ended (Docker restarted, say); poll until it is back
		}
	case <-probed: // ostset's probe made a replica ready, or no longer
	case <-t.C:
	}
	return nil
}

// PollInterval is how often a set whose rollout is in progress is looked at
// without an event (Poll, 2s by default), so that its progress deadline counts
// watched time.
func (c *Controller) PollInterval() time.Duration { return c.poll() }

func (c *Controller) poll() time.Duration {
	if c.Poll > 0 {
		return c.Poll
	}
	return 2 * time.Second
}

// Driver passes one set for a caller that schedules the passes itself (the
// daemon), and says of them what the controller's own loop says: each change
// of the plan (a replica that became ready, a new reason to wait), a failure
// and the recovery.
type Driver struct{ p progress }

// Driver returns the driver of the set called name.
func (c *Controller) Driver(name string) *Driver {
	return &Driver{p: progress{c: c, set: name}}
}

// Pass runs one pass (see Controller.Pass) and reports its plan. It returns
// the set's state as the pass left it too.
func (d *Driver) Pass(ctx context.Context) (plan.Plan, state.State, error) {
	return d.p.c.pass(ctx, d.p.set, func(_ state.State, pl plan.Plan) { d.p.observed(pl) })
}

// Failed reports a failed pass, retried after retry.
func (d *Driver) Failed(err error, retry time.Duration) { d.p.failed(err, retry) }

// Succeeded reports a pass that did not fail.
func (d *Driver) Succeeded() { d.p.succeeded() }

// ConflictError says that a rollout cannot go on because containers that do
// not belong to the set hold names it needs. A waiting command stops with it
// rather than wait for a person; a daemon keeps waiting, and the set resumes
// once the names are free.
type ConflictError struct {
	Set       string
	Conflicts []plan.Conflict
}

func (e *ConflictError) Error() string {
	msgs := make([]string, 0, len(e.Conflicts)+1)
	var ways []string
	for _, c := range e.Conflicts {
		msgs = append(msgs, c.Message)
		if c.Resolve != "" && !slices.Contains(ways, c.Resolve) {
			ways = append(ways, c.Resolve)
		}
	}
	return fmt.Sprintf("rollout of %s cannot go on: %s", e.Set, strings.Join(append(msgs, ways...), "; "))
}

// blockedByConflict is the *ConflictError of a plan that has nothing left to do
// or wait for but names held by containers that are not the set's, or nil.
func blockedByConflict(set string, pl plan.Plan) error {
	if len(pl.Actions) > 0 || len(pl.Blocked) == 0 || len(pl.Waiting) > len(pl.Blocked) {
		return nil
	}
	return &ConflictError{Set: set, Conflicts: pl.Blocked}
}
