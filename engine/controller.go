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
	"sync"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/prober"
	"github.com/ostset/ostset/engine/state"
)

// Controller runs observe → plan → execute passes for sets.
type Controller struct {
	Runtime Runtime
	Store   state.Store
	Log     *slog.Logger
	// Report receives progress events; nil discards them.
	Report func(state.Event)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnPlan, if set, sees every plan a waiting loop makes, before it runs.
	OnPlan func(state.State, plan.Plan)
	// Poll is how long a waiting loop sleeps without a Docker event (default 2s):
	// a safety net, since events wake the loop.
	Poll time.Duration
	// WatchGap is how long a rollout in progress may go without a pass before
	// that time counts as time nobody watched it (no ostset process ran), which
	// the progress deadline leaves out (default 3 × Poll: a waiting loop passes
	// at least every Poll).
	WatchGap time.Duration
	// Probe gives the probe program (a static Linux executable for the
	// engine's architecture) to copy into a replica whose healthcheck runs
	// ostset's probe (see copyProbe); nil: such a replica is not created.
	Probe func(ctx context.Context) ([]byte, error)
	// Prober runs replicas' healthchecks while they start (see engine/prober);
	// nil: readiness is the engine's own status only.
	Prober *prober.Prober
	// Liveness runs liveness and startup probes; nil: none run.
	Liveness Liveness

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
func (c *Controller) record(e state.Event) {
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
func (c *Controller) report(set, replica, format string, args ...any) state.Event {
	e := state.Event{Time: c.now(), Set: set, Replica: replica, Message: fmt.Sprintf(format, args...)}
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
func (c *Controller) Pass(ctx context.Context, name string) (plan.Plan, error) {
	pl, _, err := c.pass(ctx, name, nil)
	return pl, err
}

// pass runs one pass and returns the plan and the set's state as the pass left
// it. planned, if set, sees both before the plan's actions run (not when the
// plan was thrown away).
func (c *Controller) pass(ctx context.Context, name string, planned func(state.State, plan.Plan)) (plan.Plan, state.State, error) {
	t := passTimer{start: time.Now()}
	st, unlock, err := c.Store.LockAndLoad(ctx, name)
	if err != nil {
		return plan.Plan{}, st, err
	}
	defer unlock()
	t.mark(&t.locked)
	if st.Deleting != nil {
		if err := c.finishDelete(ctx, st, true); err != nil {
			return plan.Plan{}, st, err
		}
		return plan.Plan{}, st, c.Store.Unknown(name)
	}
	if err := c.Store.TrimEvents(name); err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return plan.Plan{}, st, err
	}
	t.mark(&t.observed)
	before, _ := json.Marshal(st)
	switch finished, err := c.finishRemovals(ctx, &st, obs.Replicas); {
	case err != nil:
		return plan.Plan{}, st, errors.Join(err, c.Store.Save(st))
	case finished:
		return plan.Plan{}, st, errors.Join(c.Store.Save(st), ErrReplan)
	}
	c.probes(ctx, &st, &obs)
	st.Saw(obs)
	c.initLogs.fill(ctx, c.Runtime, name, &obs)
	pl := plan.MakePlan(st.PlanInput(obs, c.now()))
	if len(pl.Actions) > 0 && c.diedSince(name) {
		// No pass acts on a view older than a die it was sent: what the
		// pass changed in st is dropped, and the next one observes afresh.
		return pl, st, ErrReplan
	}
	st.CrashLoopStatus(&pl.Status)
	rolledBack := c.fold(&st, &pl)
	if !rolledBack { // a plan thrown away recreates nothing
		st.NoteCrashes(pl.Actions, c.now())
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
		return pl, st, errors.Join(save(), ErrReplan)
	}
	if planned != nil {
		planned(st, pl)
	}
	for _, a := range pl.Actions {
		c.logger().Info("action", "set", name, "action", a.String())
	}
	// A stop is saved ahead too: the state names the container among those
	// the set keeps stopped (StoppedIDs), so that a start after a kill here
	// starts it again rather than recreates it.
	stops := slices.ContainsFunc(pl.Actions, func(a plan.Action) bool { return a.Kind == plan.ActStop })
	if condemned := st.Condemn(pl.CondemnedVolumes); st.RecordRemovals(pl.Actions, c.now()) || condemned || stops {
		if err := c.Store.Save(st); err != nil {
			return pl, st, err
		}
		before = nil // the record is dropped as the removals end: save again
	}
	err = c.execute(ctx, &st, pl.Actions, obs.Volumes)
	if err == nil && len(pl.Actions) == 0 { // obs is still current
		_, err = c.releaseNetworks(ctx, &st, obs)
	}
	st.NoteFailures(pl.Actions, err, permanentReasons(err), c.now())
	t.mark(&t.executed)
	err = errors.Join(err, save())
	t.mark(&t.saved)
	c.logger().Debug("pass", "set", name, "actions", len(pl.Actions), "lock", t.locked, "observe", t.observed,
		"plan", t.planned, "execute", t.executed, "save", t.saved, "err", err)
	return pl, st, err
}

// diedSince reports whether the runtime was sent a die of the set that the
// pass's observation did not answer (see DiesSeen).
func (c *Controller) diedSince(set string) bool {
	d, ok := c.Runtime.(DiesSeen)
	return ok && d.DiedUnanswered(set)
}

// finishRemovals removes the replicas a pass recorded it was removing and did
// not see through (State.Removing), before anything is planned: such a
// container was perhaps sent its stop signal already, and would exit after
// this pass found it running, ready, and maybe wanted. Records of containers
// that are gone are dropped. It reports whether it removed any (the caller
// saves and observes again).
func (c *Controller) finishRemovals(ctx context.Context, st *state.State, replicas []plan.Replica) (bool, error) {
	finished := false
	for id := range st.Removing {
		i := slices.IndexFunc(replicas, func(r plan.Replica) bool { return r.ID == id })
		if i < 0 {
			delete(st.Removing, id)
			continue
		}
		r := replicas[i]
		if err := c.removeReplica(ctx, st.Spec.Name, r.Name, id, st.Spec.GracePeriod()); err != nil {
			return finished, err
		}
		c.emit(st.Spec.Name, r.Name, "%s removed (its removal was interrupted)", r.Name)
		delete(st.Removing, id)
		if r.Ordinal < st.Spec.FirstOrdinal() || r.Ordinal >= st.Spec.EndOrdinal() {
			st.ReleaseVolumes([]plan.Replica{r}, c.now()) // a scale-down's: its volumes are released
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
func (c *Controller) fold(st *state.State, pl *plan.Plan) (rolledBack bool) {
	now := c.now()
	st.CurrentRevision = pl.Status.CurrentRevision
	st.ObservedGeneration = st.Generation
	if pl.Complete {
		st.RollingBackFrom = ""
	}
	if st.TrackProgress(*pl, now, c.watchGap()) {
		c.emit(st.Spec.Name, "", "rollout to %s made no progress for %s", st.UpdateRevision, st.Spec.ProgressDeadline())
		if to, ok := st.AutoRollback(now); ok {
			c.emit(st.Spec.Name, "", "rolling back to %s", to)
			rolledBack = true
		}
	}
	pl.Status.ObservedGeneration = st.ObservedGeneration
	pl.Status.Conditions = state.Conditions(*st, *pl, now)
	st.ExplainPending(&pl.Status)
	return rolledBack
}

func (c *Controller) watchGap() time.Duration {
	if c.WatchGap > 0 {
		return c.WatchGap
	}
	return 3 * c.poll()
}

// Status observes a set and returns its status without changing anything.
func (c *Controller) Status(ctx context.Context, name string) (plan.Status, state.State, error) {
	st, pl, err := c.view(ctx, name)
	return pl.Status, st, err
}

// view observes a set and plans for it without changing anything: the plan a
// pass would make now, not executed, and its status.
func (c *Controller) view(ctx context.Context, name string) (state.State, plan.Plan, error) {
	st, err := c.Store.Load(name)
	if err != nil {
		return st, plan.Plan{}, err
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{Timings: st.Spec.MinReadySeconds > 0, Logs: true})
	if err != nil {
		return st, plan.Plan{}, err
	}
	c.initLogs.fill(ctx, c.Runtime, name, &obs)
	view := st
	view.ReadySince = maps.Clone(st.ReadySince) // remembered readiness, not saved here
	view.MarkProbed(obs.Replicas)               // what the driving process's prober recorded
	view.MarkLiveness(obs.Replicas)             // and its startup probes
	view.RememberReadiness(obs.Replicas)
	view.CrashLoops = maps.Clone(st.CrashLoops) // likewise
	pl := plan.MakePlan(view.PlanInput(obs, c.now()))
	view.CrashLoopStatus(&pl.Status)
	pl.Status.ObservedGeneration = st.ObservedGeneration
	pl.Status.Conditions = state.Conditions(st, pl, c.now())
	pl.Status.Deleting = st.Deleting
	st.MarkRemovals(&pl.Status, obs.Replicas)
	st.ExplainPending(&pl.Status)
	return st, pl, nil
}
