package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ostset/ostset/volumes"
)

// Event is one thing the controller did or noticed, for progress output.
type Event struct {
	Time    time.Time `json:"time"`
	Set     string    `json:"set"`
	Replica string    `json:"replica,omitempty"`
	Message string    `json:"message"`
	// PID is the process that recorded the event: who acted.
	PID int `json:"pid,omitempty"`
	// Observed marks what any process watching the set sees for itself (a
	// replica became ready, a new reason to wait, a failed init container), as
	// opposed to what the recording process did or decided. A follower prints
	// its own observations, not these.
	Observed bool `json:"observed,omitempty"`
	// Failing marks the failure of a pass ("error: …"); it is recorded once
	// for as long as passes keep failing with the same message, and Recovered
	// marks the first pass that succeeded after it. A follower that starts
	// while the daemon keeps failing shows the failure from the log (see
	// lastFailure).
	Failing   bool `json:"failing,omitempty"`
	Recovered bool `json:"recovered,omitempty"`
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
	// WatchGap is how long a rollout in progress may go without a pass before
	// that time counts as time nobody watched it (no ostset process ran), which
	// the progress deadline leaves out (default 3 × Poll: a waiting loop passes
	// at least every Poll).
	WatchGap time.Duration
	// Binary finds the ostset binary to mount in a replica whose healthcheck
	// runs ostset's probe (see OwnBinary); nil: such a replica is not created.
	Binary func() (OwnBinary, error)

	// initLogs remembers the output of failed init containers.
	initLogs initLogs
	// createdAt remembers when this process created a replica (by container ID),
	// more precise than Docker's creation time in seconds.
	createdAt sync.Map
	// pid is recorded in the events this controller appends (0: this process's).
	pid int
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// emit reports an event and records it in the set's event log.
func (c *Controller) emit(set, replica, format string, args ...any) {
	c.record(c.report(set, replica, format, args...))
}

// record appends an event to the set's event log, as this process's.
func (c *Controller) record(e Event) {
	e.PID = c.self()
	if err := c.Store.AppendEvent(e); err != nil {
		c.logger().Warn("event log", "set", e.Set, "err", err)
	}
}

// self is the process id the controller records in events and, following,
// recognises as its own.
func (c *Controller) self() int {
	if c.pid != 0 {
		return c.pid
	}
	return os.Getpid()
}

// report reports an event without recording it: for output only.
func (c *Controller) report(set, replica, format string, args ...any) Event {
	e := Event{Time: c.now(), Set: set, Replica: replica, Message: fmt.Sprintf(format, args...)}
	if c.Report != nil {
		c.Report(e)
	}
	return e
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
	plan, _, err := c.pass(ctx, name, nil)
	return plan, err
}

// pass runs one pass and returns the plan and the set's state as the pass left
// it. planned, if set, sees both before the plan's actions run (not when the
// plan was thrown away).
func (c *Controller) pass(ctx context.Context, name string, planned func(State, Plan)) (Plan, State, error) {
	t := passTimer{start: time.Now()}
	st, unlock, err := c.Store.lockAndLoad(ctx, name)
	if err != nil {
		return Plan{}, st, err
	}
	defer unlock()
	t.mark(&t.locked)
	if st.Deleting != nil {
		if err := c.finishDelete(ctx, st, true); err != nil {
			return Plan{}, st, err
		}
		return Plan{}, st, c.Store.Unknown(name)
	}
	if err := c.Store.TrimEvents(name); err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return Plan{}, st, err
	}
	t.mark(&t.observed)
	before, _ := json.Marshal(st)
	switch finished, err := c.finishRemovals(ctx, &st, obs.Replicas); {
	case err != nil:
		return Plan{}, st, errors.Join(err, c.Store.Save(st))
	case finished:
		return Plan{}, st, errors.Join(c.Store.Save(st), ErrReplan)
	}
	st.rememberReadiness(obs.Replicas)
	st.settleCondemnedVolumes(obs)
	st.forgetFailures(obs.Replicas)
	c.initLogs.fill(ctx, c.Runtime, name, &obs)
	plan := MakePlan(Input{
		Set:              st.Spec,
		CurrentRevision:  st.CurrentRevision,
		UpdateRevision:   st.UpdateRevision,
		Paused:           st.Paused,
		Observed:         obs,
		Now:              c.now(),
		RecreateAfter:    st.crashBackoff(obs.Replicas, c.now()),
		InitContainers:   initNames(st),
		Networks:         revisionNetworks(st),
		CondemnedVolumes: st.CondemnedVolumes,
	})
	st.crashLoopStatus(&plan.Status)
	rolledBack := c.fold(&st, &plan)
	if !rolledBack { // a plan thrown away recreates nothing
		st.noteCrashes(plan.Actions, c.now())
	}
	t.mark(&t.planned)
	// The state is saved once, after the actions, still under the lock: no
	// other process sees it in between, and what a crash in between loses
	// (readiness times, progress marks, a crash count) the next pass observes
	// again. Saving first would put a write and two fsyncs between a Docker
	// event and the create that answers it. A rollback is saved at once: its
	// plan is thrown away and the next pass must start from it.
	save := func() error {
		if after, _ := json.Marshal(st); string(after) != string(before) {
			return c.Store.Save(st)
		}
		return nil
	}
	if rolledBack {
		return plan, st, errors.Join(save(), ErrReplan)
	}
	if planned != nil {
		planned(st, plan)
	}
	for _, a := range plan.Actions {
		c.logger().Info("action", "set", name, "action", a.String())
	}
	if st.recordRemovals(plan.Actions, c.now()) {
		if err := c.Store.Save(st); err != nil {
			return plan, st, err
		}
		before = nil // the record is dropped as the removals end: save again
	}
	err = c.execute(ctx, &st, plan.Actions, obs.Volumes)
	if err == nil && len(plan.Actions) == 0 { // obs is still current
		_, err = c.releaseNetworks(ctx, &st, obs)
	}
	st.noteFailures(plan.Actions, err, c.now())
	t.mark(&t.executed)
	err = errors.Join(err, save())
	t.mark(&t.saved)
	c.logger().Debug("pass", "set", name, "actions", len(plan.Actions), "lock", t.locked, "observe", t.observed,
		"plan", t.planned, "execute", t.executed, "save", t.saved, "err", err)
	return plan, st, err
}

// recordRemovals notes in st the replicas the actions remove (see
// State.Removing) and, under whenScaled: Delete, the ordinals a scale-down
// condemns (State.CondemnedVolumes), and reports whether it noted any.
// Removing an init container needs no removal record: a replica's init
// containers are all removed again before it is created. Nor does removing a
// replica that exited: it is sent no stop signal, and a pass that finds it
// still there removes it again.
func (st *State) recordRemovals(actions []Action, now time.Time) bool {
	recorded := false
	for _, a := range actions {
		if a.Kind != ActDelete && a.Kind != ActDeleteInit {
			continue
		}
		if a.Kind == ActDelete && !a.Failed { // an exited replica is sent no stop signal
			if st.Removing == nil {
				st.Removing = map[string]time.Time{}
			}
			st.Removing[a.ID], recorded = now, true
		}
		// A replica still initializing is condemned as well (a pod in Kubernetes).
		if a.Releases && st.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled == volumes.Delete && !slices.Contains(st.CondemnedVolumes, a.Ordinal) {
			st.CondemnedVolumes = append(st.CondemnedVolumes, a.Ordinal)
			slices.Sort(st.CondemnedVolumes)
			recorded = true
		}
	}
	return recorded
}

// settleCondemnedVolumes drops the records of State.CondemnedVolumes that are
// settled: the ordinal is back in the range (a scale up reuses its volumes),
// whenScaled is no longer Delete, or neither its container nor any of its
// volumes is left (the whenScaled rule removed them).
func (st *State) settleCondemnedVolumes(obs Observed) {
	spec := st.Spec
	st.CondemnedVolumes = slices.DeleteFunc(st.CondemnedVolumes, func(ord int) bool {
		left := slices.ContainsFunc(obs.Replicas, func(r Replica) bool { return r.Ordinal == ord }) ||
			slices.ContainsFunc(obs.Volumes, func(v Volume) bool { return v.Ordinal == ord })
		return (ord >= spec.FirstOrdinal() && ord < spec.EndOrdinal()) ||
			spec.PersistentVolumeClaimRetentionPolicy.WhenScaled != volumes.Delete || !left
	})
	if len(st.CondemnedVolumes) == 0 {
		st.CondemnedVolumes = nil
	}
}

// finishRemovals removes the replicas a pass recorded it was removing and did
// not see through (State.Removing), before anything is planned: such a
// container was perhaps sent its stop signal already, and would exit after
// this pass found it running, ready, and maybe wanted. Records of containers
// that are gone are dropped. It reports whether it removed any (the caller
// saves and observes again).
func (c *Controller) finishRemovals(ctx context.Context, st *State, replicas []Replica) (bool, error) {
	finished := false
	for id := range st.Removing {
		i := slices.IndexFunc(replicas, func(r Replica) bool { return r.ID == id })
		if i < 0 {
			delete(st.Removing, id)
			continue
		}
		r := replicas[i]
		if err := c.Runtime.RemoveReplica(ctx, st.Spec.Name, id, st.Spec.GracePeriod()); err != nil {
			return finished, err
		}
		c.emit(st.Spec.Name, r.Name, "%s removed (its removal was interrupted)", r.Name)
		delete(st.Removing, id)
		if r.Ordinal < st.Spec.FirstOrdinal() || r.Ordinal >= st.Spec.EndOrdinal() {
			st.releaseVolumes([]Replica{r}, c.now()) // a scale-down's: its volumes are released
		}
		finished = true
	}
	return finished, nil
}

// passTimer records how long each phase of a pass took, for the debug log.
type passTimer struct {
	start                                      time.Time
	locked, observed, planned, executed, saved time.Duration
}

func (t *passTimer) mark(phase *time.Duration) {
	now := time.Now()
	*phase = now.Sub(t.start)
	t.start = now
}

// fold folds a plan into the set's state: the current revision, the observed
// generation, rollout progress and, past the progress deadline, an automatic
// rollback (after which the plan is stale and must not run).
func (c *Controller) fold(st *State, plan *Plan) (rolledBack bool) {
	now := c.now()
	st.CurrentRevision = plan.Status.CurrentRevision
	st.ObservedGeneration = st.Generation
	if plan.Complete {
		st.RollingBackFrom = ""
	}
	if st.TrackProgress(*plan, now, c.watchGap()) {
		c.emit(st.Spec.Name, "", "rollout to %s made no progress for %s", st.UpdateRevision, st.Spec.ProgressDeadline())
		if to, ok := st.AutoRollback(now); ok {
			c.emit(st.Spec.Name, "", "rolling back to %s", to)
			rolledBack = true
		}
	}
	plan.Status.ObservedGeneration = st.ObservedGeneration
	plan.Status.Conditions = Conditions(*st, *plan, now)
	explainPending(&plan.Status, st.Failures)
	return rolledBack
}

func (c *Controller) watchGap() time.Duration {
	if c.WatchGap > 0 {
		return c.WatchGap
	}
	return 3 * c.poll()
}

// Status observes a set and returns its status without changing anything.
func (c *Controller) Status(ctx context.Context, name string) (Status, State, error) {
	st, plan, err := c.view(ctx, name)
	return plan.Status, st, err
}

// view observes a set and plans for it without changing anything: the plan a
// pass would make now, not executed, and its status.
func (c *Controller) view(ctx context.Context, name string) (State, Plan, error) {
	st, err := c.Store.Load(name)
	if err != nil {
		return st, Plan{}, err
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0, Logs: true})
	if err != nil {
		return st, Plan{}, err
	}
	c.initLogs.fill(ctx, c.Runtime, name, &obs)
	view := st
	view.ReadySince = maps.Clone(st.ReadySince) // remembered readiness, not saved here
	view.rememberReadiness(obs.Replicas)
	view.CrashLoops = maps.Clone(st.CrashLoops) // likewise
	plan := MakePlan(Input{Set: st.Spec, CurrentRevision: st.CurrentRevision, UpdateRevision: st.UpdateRevision,
		Paused: st.Paused, Observed: obs, Now: c.now(), InitContainers: initNames(st), Networks: revisionNetworks(st),
		CondemnedVolumes: st.CondemnedVolumes, RecreateAfter: view.crashBackoff(obs.Replicas, c.now())})
	view.crashLoopStatus(&plan.Status)
	plan.Status.ObservedGeneration = st.ObservedGeneration
	plan.Status.Conditions = Conditions(st, plan, c.now())
	plan.Status.Deleting = st.Deleting
	markRemovals(&plan.Status, obs.Replicas, st.Removing)
	explainPending(&plan.Status, st.Failures)
	return st, plan, nil
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
	return c.loop(ctx, name, &wait{revision: revision, start: start.UpdateRevision, started: c.now()}, start)
}

// Run keeps one set converged until ctx ends or the set is deleted.
func (c *Controller) Run(ctx context.Context, name string) error {
	start, err := c.Store.Load(name)
	if err != nil {
		return err
	}
	return c.loop(ctx, name, nil, start)
}

// loop runs passes for the set until ctx ends, or until the wait w ends (nil:
// the daemon's loop, which never does). start is the set's state it began with.
func (c *Controller) loop(ctx context.Context, name string, w *wait, start State) error {
	wt := watcher{c: c, set: name}
	if err := wt.subscribe(ctx); err != nil {
		// Passes report Docker failures with backoff; events are only a wake-up.
		c.logger().Warn("docker events", "set", name, "err", err)
	}
	err := c.drive(ctx, &wt, &progress{c: c, set: name}, w)
	return deletedSince(name, start, err)
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
func (c *Controller) beginWait(ctx context.Context, name string) (State, error) {
	st, err := c.Store.Load(name)
	if err != nil || st.Deleting != nil || !st.ReopenProgress() {
		return st, err // nothing to reopen (a change just did): no lock taken
	}
	st, unlock, err := c.Store.lockAndLoad(ctx, name)
	if err != nil {
		return st, err
	}
	defer unlock()
	if st.Deleting == nil && st.ReopenProgress() {
		err = c.Store.Save(st)
	}
	return st, err
}

// deletedSince turns ErrUnknownSet, met by a wait that began with the set's
// state start, into a *DeletedError: the set was there when the wait began.
func deletedSince(name string, start State, err error) error {
	if errors.Is(err, ErrUnknownSet) {
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

// drive runs passes, reporting through p, until the wait wt ends (never, if
// nil) or ctx ends.
func (c *Controller) drive(ctx context.Context, w *watcher, p *progress, wt *wait) error {
	untilComplete := wt != nil
	name := p.set
	backoff := time.Duration(0)
	for {
		plan, st, err := c.pass(ctx, name, func(st State, plan Plan) {
			p.observed(plan)
			if c.OnPlan != nil {
				c.OnPlan(st, plan)
			}
		})
		switch {
		case errors.Is(err, ErrReplan):
			continue
		case errors.Is(err, ErrUnknownSet):
			return err
		case ctx.Err() != nil:
			return p.stopped(ctx.Err())
		case err != nil && untilComplete && IsPermanent(err):
			// A retry would fail the same way until a person changes the set
			// or the host: say so now, with the engine's words, rather than
			// at the deadline. (Run, the daemon's way, keeps retrying.)
			return &FailedError{Set: name, Failures: permanentFailures(err)}
		case err != nil && untilComplete && IsStateDirFull(err):
			return err // waiting frees no space (the daemon keeps retrying)
		case err != nil:
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
			p.failed(err, backoff)
		default:
			backoff = 0
			p.succeeded()
			if untilComplete {
				if done, err := wt.finished(name, plan, st); done {
					return err
				}
			}
			if err := heldElsewhere(name, plan); err != nil && untilComplete {
				return err
			}
			if err := blockedByConflict(name, plan); err != nil && untilComplete {
				return err
			}
			if len(plan.Actions) > 0 {
				continue
			}
		}
		if err := c.sleep(ctx, w, plan.RequeueAt, backoff); err != nil {
			return p.stopped(err)
		}
	}
}

// finished says whether the wait for the set's rollout ends with this plan: its
// revision was superseded (*SupersededError), the rollout is complete (with a
// *RollbackError if it was rolled back since the wait began), or it passed its
// progress deadline without a rollback (*DeadlineError).
func (w *wait) finished(name string, plan Plan, st State) (bool, error) {
	if err := w.superseded(st); err != nil {
		return true, err
	}
	if plan.Complete {
		return true, rolledBackSince(w.start, st, w.started)
	}
	if st.Progress.Late && st.RollingBackFrom == "" {
		return true, &DeadlineError{Set: name, Revision: st.UpdateRevision, Deadline: st.Spec.ProgressDeadline(), Waiting: plan.Status.Waiting}
	}
	return false, nil
}

// superseded returns a *SupersededError when the revision the wait is for is
// no longer the set's update revision, unless an automatic rollback of it
// since the wait began made the change (that wait ends with the rollback's
// *RollbackError once the rollback completes).
func (w *wait) superseded(st State) error {
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
func rolledBackSince(startRevision string, st State, started time.Time) error {
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
func (d *Driver) Pass(ctx context.Context) (Plan, State, error) {
	return d.p.c.pass(ctx, d.p.set, func(_ State, plan Plan) { d.p.observed(plan) })
}

// Failed reports a failed pass, retried after retry.
func (d *Driver) Failed(err error, retry time.Duration) { d.p.failed(err, retry) }

// Succeeded reports a pass that did not fail.
func (d *Driver) Succeeded() { d.p.succeeded() }

// progress turns successive plans into one line per change: a replica that became
// ready, a new reason to wait, an error; and, while the set keeps waiting for the
// same thing, a reminder every remindEvery.
type progress struct {
	c   *Controller
	set string
	// following: what the set's controller records, this process only reports
	// (observations are made and recorded by the process that drives the set).
	following bool
	// readySeen is nil until the first plan, whose ready replicas are not news,
	// but for those in acted: a follower may first look when the daemon has
	// already created them and made them ready.
	readySeen map[string]bool
	// acted holds the replicas that the relayed events of another process name.
	acted map[string]bool
	// readyUnsaid holds, following, the replicas the first plan found ready
	// that no relayed event named yet, with the time they took: the daemon
	// may have made them in this rollout and not recorded it yet (Docker
	// shows a replica before the create call returns). Their "created" line,
	// when relayed, brings the "ready" line after it.
	readyUnsaid map[string]time.Duration
	// seen is the container of each replica in the last plan, by replica name.
	seen map[string]string
	// unrecorded holds, following, the containers that appeared since the
	// first plan and whose "created" line no relayed event brought yet, by
	// replica name; createdRelayed the replicas whose "created" line came
	// before any plan showed the container. A ready line waits for the
	// created line; if the maker stopped between its create and the record
	// (a daemon killed), the follower says what it saw when it stops following.
	unrecorded     map[string]*unrecordedCreate
	createdRelayed map[string]bool
	// notReadySince is when a container seen ready was then seen not ready,
	// or one the first plan found not ready was seen so, by ID: its time to
	// ready counts from there, not from its creation (which may be long ago).
	notReadySince map[string]time.Time
	// failedSeen holds the failed init containers reported, by ID.
	failedSeen map[string]bool
	waiting    []string
	lastErr    string
	// daemonErr is the failure the daemon keeps hitting, as a follower
	// learns it from the daemon's events; "" once it recovered.
	daemonErr string
	status    Status    // of the last plan
	since     time.Time // when the set started waiting for what it waits for
	reminded  time.Time
}

// remindEvery is how often a wait that does not move says again what it waits for.
const remindEvery = 30 * time.Second

func (p *progress) observed(plan Plan) {
	now := p.c.now()
	p.status = plan.Status
	first := p.readySeen == nil
	if first {
		p.readySeen = map[string]bool{}
	}
	seen := make(map[string]string, len(plan.Status.Containers))
	for _, cs := range plan.Status.Containers {
		seen[cs.Name] = cs.ID
		if p.following && !first && p.seen[cs.Name] != cs.ID {
			p.appeared(cs)
		}
		if cs.Ready && !p.readySeen[cs.ID] {
			p.readySeen[cs.ID] = true
			took := now.Sub(p.readyFrom(cs)).Round(100 * time.Millisecond)
			switch u := p.unrecorded[cs.Name]; {
			case u != nil:
				u.ready, u.took = true, took
			case !first || p.acted[cs.Name]:
				p.saw(cs.Name, "%s ready (%s)", cs.Name, took)
			case p.following:
				if p.readyUnsaid == nil {
					p.readyUnsaid = map[string]time.Duration{}
				}
				p.readyUnsaid[cs.Name] = took
			}
		}
		if !cs.Ready {
			// Seen go not ready, or not ready at the first plan (made before
			// this wait, by whoever): once ready, it took the time since.
			if p.readySeen[cs.ID] || first {
				if p.notReadySince == nil {
					p.notReadySince = map[string]time.Time{}
				}
				p.notReadySince[cs.ID] = now
			}
			delete(p.readySeen, cs.ID)
		}
	}
	for id := range p.notReadySince {
		if !slices.ContainsFunc(plan.Status.Containers, func(cs ContainerStatus) bool { return cs.ID == id }) {
			delete(p.notReadySince, id)
		}
	}
	p.seen = seen
	p.initFailures(plan.Status.Initializing)
	if !slices.EqualFunc(plan.Status.Waiting, p.waiting, func(a, b string) bool { return sameWait(a) == sameWait(b) }) {
		for _, w := range plan.Status.Waiting {
			if !slices.ContainsFunc(p.waiting, func(old string) bool { return sameWait(old) == sameWait(w) }) {
				p.saw("", "waiting: %s", w)
			}
		}
		p.waiting = plan.Status.Waiting
		p.since, p.reminded = now, now
		return
	}
	p.waiting = plan.Status.Waiting // the same waits, with the latest outputs
	if len(p.waiting) > 0 && len(plan.Actions) == 0 && now.Sub(p.reminded) >= remindEvery {
		p.reminded = now
		p.c.report(p.set, "", "still waiting after %s: %s", now.Sub(p.since).Round(time.Second), strings.Join(p.waiting, "; "))
	}
}

// initFailures reports each failed init container once, with its exit code and
// last lines, also on the first plan: a failure is news to whoever waits.
func (p *progress) initFailures(inits []InitStatus) {
	seen := map[string]bool{} // only the failures still there: a container ID never comes back
	for _, s := range inits {
		if s.State != InitFailed {
			continue
		}
		seen[s.ID] = true
		if p.failedSeen[s.ID] {
			continue
		}
		msg := fmt.Sprintf("%s: init container %s (%s) exited with code %d", s.Replica, s.Init, s.Container, s.ExitCode)
		if len(s.Logs) > 0 {
			msg += "; last output: " + strings.Join(s.Logs, " | ")
		}
		p.saw(s.Replica, "%s", msg)
	}
	p.failedSeen = seen
}

// readyFrom is when a replica's wait to be ready began: its creation, or the
// last time this process saw it go from ready to not ready (a healthcheck that
// flaps, a container Docker restarted).
func (p *progress) readyFrom(cs ContainerStatus) time.Time {
	from := p.c.created(cs)
	if t, ok := p.notReadySince[cs.ID]; ok && t.After(from) {
		from = t
	}
	return from
}

// unrecordedCreate is a container a follower saw appear without its "created"
// line, and whether it became ready meanwhile, after how long.
type unrecordedCreate struct {
	cs    ContainerStatus
	ready bool
	took  time.Duration
}

// appeared notes, following, a container that was not there at the last
// plan: news whose "created" line the follower relays, or waits for.
func (p *progress) appeared(cs ContainerStatus) {
	if p.createdRelayed[cs.Name] {
		delete(p.createdRelayed, cs.Name)
		return
	}
	if p.unrecorded == nil {
		p.unrecorded = map[string]*unrecordedCreate{}
	}
	p.unrecorded[cs.Name] = &unrecordedCreate{cs: cs}
}

// sayUnrecorded says, for each container that appeared while following and
// whose creation no relayed line named, that it was created, and, if it is
// ready, that it is: the process that made it stopped (a daemon killed)
// between its create and the record of it. Called when following ends.
func (p *progress) sayUnrecorded() {
	for _, name := range slices.Sorted(maps.Keys(p.unrecorded)) {
		u := p.unrecorded[name]
		p.saw(name, "%s created (revision %s; seen in Docker, not recorded by the process that made it)", name, u.cs.Revision)
		if u.ready {
			p.saw(name, "%s ready (%s)", name, u.took)
		}
	}
	p.unrecorded = nil
}

// relayed notes an event of another process that a follower reported: the
// replica it names is the daemon's doing, and if the event is its creation and
// the first plan found it ready, that readiness is news, said now.
func (p *progress) relayed(e Event) {
	p.noteFailure(e)
	if e.Replica == "" {
		return
	}
	p.acted[e.Replica] = true
	if strings.HasPrefix(e.Message, e.Replica+" created ") { // as apply words it
		if u := p.unrecorded[e.Replica]; u != nil {
			delete(p.unrecorded, e.Replica)
			if u.ready {
				p.saw(e.Replica, "%s ready (%s)", e.Replica, u.took)
			}
		} else if p.readySeen != nil {
			if p.createdRelayed == nil {
				p.createdRelayed = map[string]bool{}
			}
			p.createdRelayed[e.Replica] = true // the next plan shows its container
		}
	}
	took, ok := p.readyUnsaid[e.Replica]
	if !ok || !strings.HasPrefix(e.Message, e.Replica+" ") {
		return // not about the replica's own container (its init containers')
	}
	delete(p.readyUnsaid, e.Replica)
	if strings.HasPrefix(e.Message, e.Replica+" created ") { // as apply words it
		p.saw(e.Replica, "%s ready (%s)", e.Replica, took)
	}
	// Any other line (removed, …): the container found ready was an older one.
}

// noteFailure keeps, following, the failure the daemon's events say it
// keeps hitting, for the error a stopped wait returns.
func (p *progress) noteFailure(e Event) {
	switch {
	case e.Failing:
		p.daemonErr = strings.TrimPrefix(e.Message, "error: ")
	case e.Recovered:
		p.daemonErr = ""
	}
}

// saw reports an observation and, unless following, records it, marked Observed.
func (p *progress) saw(replica, format string, args ...any) {
	e := p.c.report(p.set, replica, format, args...)
	if !p.following {
		e.Observed = true
		p.c.record(e)
	}
}

func (p *progress) failed(err error, retry time.Duration) {
	if msg := err.Error(); msg != p.lastErr {
		p.lastErr = msg
		if p.following { // this process's own trouble observing, not the set's
			p.c.report(p.set, "", "error: %s (retrying every %s at most)", msg, retry.Round(time.Millisecond))
			return
		}
		e := p.c.report(p.set, "", "error: %s (retrying every %s at most)", msg, retry.Round(time.Millisecond))
		e.Failing = true
		p.c.record(e)
	}
}

// succeeded ends a run of failed passes; a driving loop records that it
// recovered, so that a follower stops counting the failure as current.
func (p *progress) succeeded() {
	if p.lastErr == "" {
		return
	}
	p.lastErr = ""
	if !p.following {
		e := p.c.report(p.set, "", "recovered: the pass succeeded")
		e.Recovered = true
		p.c.record(e)
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

// stopped turns the end of a wait (its deadline, or Ctrl-C) into a StoppedError
// that says where the rollout stood and what it was waiting for.
func (p *progress) stopped(err error) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	e := &StoppedError{Set: p.set, Cause: err}
	if s := p.status; s.Name != "" {
		e.Where = fmt.Sprintf("%d of %d replicas at revision %s, %d ready", s.UpdatedReplicas, s.Replicas, s.UpdateRevision, s.ReadyReplicas)
	}
	switch {
	case p.lastErr != "":
		e.Detail = "last error: " + p.lastErr
	case p.daemonErr != "":
		e.Detail = "the daemon's last error: " + p.daemonErr
	case len(p.waiting) > 0:
		e.Detail = "waiting for " + strings.Join(p.waiting, "; ")
	}
	return e
}

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
