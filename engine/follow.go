package engine

import (
	"context"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/state"
)

// Follow waits, as Converge does, for the set's rollout while a daemon drives
// it: it observes and plans without executing, reports what Converge would
// report, and ends as Converge ends (nil once complete, *RollbackError,
// *DeadlineError, *StoppedError, an *OwnershipError, ErrUnknownSet, a
// *DeletedError).
//
// What the daemon does (creates, removals, rollbacks, its errors) it relays from
// the set's event log: the events numbered above after that another process
// recorded and that are not observations; the readiness and the waits it reports
// from its own observation, as a driving loop does, but for the daemon's line
// that a replica it relayed the creation of is ready, said in the log's order
// when its own view lags behind the daemon's next lines. A caller that changed the
// set passes the log's number from before the change (Store.EventSeq), so that
// nothing the daemon did since is missed.
//
// When no daemon holds the state directory (none was running, or it stopped),
// Follow drives the rollout itself from there on, as Converge.
//
// As ConvergeTo, it opens a new progress window, and revision, if set, is the
// update revision the command made: the wait ends with a *SupersededError
// once another replaces it.
func (c *Controller) Follow(ctx context.Context, name string, after int64, revision string) error {
	start, err := c.beginWait(ctx, name)
	if err != nil {
		return err
	}
	return c.loop(ctx, &turns{c: c, name: name, p: &progress{c: c, set: name, following: true, acted: map[string]bool{}},
		wt: &wait{revision: revision, start: start.UpdateRevision, started: c.now()}, following: true, after: after}, start)
}

// daemonStopped, following, says whether the daemon no longer holds the state
// directory: the loop then drives the rollout itself (as Converge), with the
// same reporter, once the daemon's last lines are relayed. While it runs, a
// new daemon (pid) is announced, with the failure it keeps hitting.
func (t *turns) daemonStopped() bool {
	pid, running := t.c.Store.DaemonRunning()
	if !running {
		t.relay() // the daemon's last lines first
		if t.daemon != 0 {
			t.c.report(t.name, "", "the daemon (pid %d) stopped: going on with the rollout", t.daemon)
		}
		t.following, t.p.following = false, false
		t.p.sayUnrecorded() // the daemon records nothing more
		return true
	}
	if pid != t.daemon {
		t.c.report(t.name, "", "following the rollout that the daemon (pid %d) drives", pid)
		t.daemon = pid
		t.c.lastFailure(t.name, t.after, pid, t.p)
	}
	return false
}

// relay reports what the daemon recorded since the last relay (see
// Controller.relay).
func (t *turns) relay() { t.after = t.c.relay(t.name, t.after, t.p) }

// awaitPass waits, for a few seconds at most, until no pass holds the set's
// lock. A pass records what it did before it releases the lock, but Docker
// shows a replica as soon as it is created: the daemon's pass that made the
// replica a view found ready may not have recorded it yet.
func (c *Controller) awaitPass(ctx context.Context, name string) {
	s := c.Store
	s.Waiting = nil // waiting out a pass is not news
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if unlock, err := s.Lock(ctx, name); err == nil {
		unlock()
	}
}

// relay reports the events of the set's log numbered above after that another
// process recorded and that are not observations, but for the "ready" lines
// of containers whose readiness p has not said (see progress.relayReady),
// notes in p the replicas they name, and returns the number to pass next time.
func (c *Controller) relay(name string, after int64, p *progress) int64 {
	events, last, err := c.Store.Events(name, after)
	if err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
		return after
	}
	for _, e := range events {
		if e.PID == c.self() {
			continue
		}
		if !e.Observed {
			if c.Report != nil {
				c.Report(e)
			}
			p.relayed(e)
		} else if p.relayReady(e) && c.Report != nil {
			c.Report(e)
		}
	}
	return last
}

// lastFailure shows, when a follower starts, the failure the daemon (pid)
// keeps hitting: its passes record a failure once, when it first happens
// (Event.Failing), so a follower that starts later would relay nothing while
// the daemon retries the same failing step for ever. The daemon's newest
// failure or recovery at or below after tells: a failure not followed by a
// recovery is still current.
func (c *Controller) lastFailure(name string, after int64, pid int, p *progress) {
	events, newest, err := c.Store.Events(name, 0)
	if err != nil {
		c.logger().Warn("event log", "set", name, "err", err)
		return
	}
	// Numbers go up by one from line to line: those above after are relayed.
	events = events[:min(len(events), max(0, len(events)-int(newest-after)))]
	var last *state.Event
	for i := range events {
		if e := &events[i]; e.PID == pid && (e.Failing || e.Recovered) {
			last = e
		}
	}
	if last == nil || !last.Failing {
		return
	}
	c.report(name, "", "the daemon keeps failing since %s: %s", last.Time.Local().Format("15:04:05"), strings.TrimPrefix(last.Message, "error: "))
	p.noteFailure(*last)
}
