package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

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
	unrecorded map[string]*unrecordedCreate
	// createdRelayed holds the container of each replica whose "created"
	// line came before a plan showed it ("" when the line names none).
	createdRelayed map[string]string
	// createdIDs holds, following, the containers whose "created" line was
	// relayed and whose readiness is not said yet; readySaid those whose
	// readiness was said from the daemon's "ready" line, in the log's order,
	// before a plan of this process showed them ready (its views may lag
	// behind the log): that plan says nothing more of them.
	createdIDs, readySaid map[string]bool
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
	status    plan.Status // of the last plan
	since     time.Time   // when the set started waiting for what it waits for
	reminded  time.Time
}

// remindEvery is how often a wait that does not move says again what it waits for.
const remindEvery = 30 * time.Second

func (p *progress) observed(pl plan.Plan) {
	now := p.c.now()
	p.status = pl.Status
	first := p.readySeen == nil
	if first {
		p.readySeen = map[string]bool{}
	}
	for name, u := range p.unrecorded {
		if !slices.ContainsFunc(pl.Status.Containers, func(cs plan.ContainerStatus) bool { return cs.ID == u.cs.ID }) {
			// Gone before any record of it: a create whose start failed,
			// removed again by its maker (its retry is the one recorded).
			delete(p.unrecorded, name)
		}
	}
	seen := make(map[string]string, len(pl.Status.Containers))
	for _, cs := range pl.Status.Containers {
		seen[cs.Name] = cs.ID
		if p.following && !first && p.seen[cs.Name] != cs.ID {
			p.appeared(cs)
		} else if id, ok := p.createdRelayed[cs.Name]; first && ok && (id == "" || id == cs.ID) {
			delete(p.createdRelayed, cs.Name) // its line came after this view was taken
		}
		if p.readySaid[cs.ID] {
			// Said from the log, which this view may predate: not ready
			// here is no news, ready is said already.
			if cs.Ready {
				delete(p.readySaid, cs.ID)
				p.readySeen[cs.ID] = true
			}
			continue
		}
		if cs.Ready && !p.readySeen[cs.ID] {
			p.readySeen[cs.ID] = true
			delete(p.createdIDs, cs.ID)
			took := now.Sub(p.readyFrom(cs)).Round(100 * time.Millisecond)
			switch u := p.unrecorded[cs.Name]; {
			case u != nil && u.cs.ID == cs.ID:
				u.ready, u.took = true, took
			case !first || p.acted[cs.Name]:
				p.sawReady(cs.Name, cs.ID, took)
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
		if !slices.ContainsFunc(pl.Status.Containers, func(cs plan.ContainerStatus) bool { return cs.ID == id }) {
			delete(p.notReadySince, id)
		}
	}
	p.seen = seen
	p.initFailures(pl.Status.Initializing)
	if !slices.EqualFunc(pl.Status.Waiting, p.waiting, func(a, b string) bool { return sameWait(a) == sameWait(b) }) {
		for _, w := range pl.Status.Waiting {
			if !slices.ContainsFunc(p.waiting, func(old string) bool { return sameWait(old) == sameWait(w) }) {
				p.saw("", "waiting: %s", w)
			}
		}
		p.waiting = pl.Status.Waiting
		p.since, p.reminded = now, now
		return
	}
	p.waiting = pl.Status.Waiting // the same waits, with the latest outputs
	if len(p.waiting) > 0 && len(pl.Actions) == 0 && now.Sub(p.reminded) >= remindEvery {
		p.reminded = now
		p.c.report(p.set, "", "still waiting after %s: %s", now.Sub(p.since).Round(time.Second), strings.Join(p.waiting, "; "))
	}
}

// initFailures reports each failed init container once, with its exit code and
// last lines, also on the first plan: a failure is news to whoever waits.
func (p *progress) initFailures(inits []plan.InitStatus) {
	seen := map[string]bool{} // only the failures still there: a container ID never comes back
	for _, s := range inits {
		if s.State != plan.InitFailed {
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
func (p *progress) readyFrom(cs plan.ContainerStatus) time.Time {
	from := p.c.created(cs)
	if t, ok := p.notReadySince[cs.ID]; ok && t.After(from) {
		from = t
	}
	return from
}

// unrecordedCreate is a container a follower saw appear without its "created"
// line, and whether it became ready meanwhile, after how long.
type unrecordedCreate struct {
	cs    plan.ContainerStatus
	ready bool
	took  time.Duration
}

// appeared notes, following, a container that was not there at the last
// plan: news whose "created" line the follower relays, or waits for.
func (p *progress) appeared(cs plan.ContainerStatus) {
	if id, ok := p.createdRelayed[cs.Name]; ok && (id == "" || id == cs.ID) {
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
			p.sawReady(name, u.cs.ID, u.took)
		}
	}
	p.unrecorded = nil
}

// relayed notes an event of another process that a follower reported: the
// replica it names is the daemon's doing, and if the event is its creation and
// the first plan found it ready, that readiness is news, said now.
func (p *progress) relayed(e state.Event) {
	p.noteFailure(e)
	if e.Replica == "" {
		return
	}
	p.acted[e.Replica] = true
	if strings.HasPrefix(e.Message, e.Replica+" created ") { // as apply words it
		if e.Container != "" {
			if p.createdIDs == nil {
				p.createdIDs = map[string]bool{}
			}
			p.createdIDs[e.Container] = true
		}
		if u := p.unrecorded[e.Replica]; u != nil && (e.Container == "" || e.Container == u.cs.ID) {
			delete(p.unrecorded, e.Replica)
			if u.ready {
				p.sawReady(e.Replica, u.cs.ID, u.took)
			}
		} else {
			// The next plans show its container (a first plan's view may
			// be older than this line, taken before it was relayed).
			if p.createdRelayed == nil {
				p.createdRelayed = map[string]string{}
			}
			p.createdRelayed[e.Replica] = e.Container // the next plans show its container
		}
	}
	took, ok := p.readyUnsaid[e.Replica]
	if !ok || !strings.HasPrefix(e.Message, e.Replica+" ") {
		return // not about the replica's own container (its init containers')
	}
	delete(p.readyUnsaid, e.Replica)
	if strings.HasPrefix(e.Message, e.Replica+" created ") { // as apply words it
		p.sawReady(e.Replica, e.Container, took)
	}
	// Any other line (removed, …): the container found ready was an older one.
}

// relayReady says whether a follower relays e, an observation the daemon
// recorded, and notes it if so: the daemon's "ready" line for a container
// whose "created" line the follower relayed, or that a plan of its own
// showed, and whose readiness it has not said. Said at its place in the
// log, it comes before the daemon's next lines (the next replica's
// creation), which the follower's own view, taken earlier, may not show yet.
func (p *progress) relayReady(e state.Event) bool {
	id := e.Container
	if id == "" || !strings.HasPrefix(e.Message, e.Replica+" ready (") { // as sawReady words it
		return false
	}
	if p.readySeen[id] || p.readySaid[id] || !p.createdIDs[id] && p.seen[e.Replica] != id {
		return false
	}
	if u := p.unrecorded[e.Replica]; u != nil && u.cs.ID == id {
		return false // said after its "created" line (or what was seen of it)
	}
	delete(p.createdIDs, id)
	if p.readySaid == nil {
		p.readySaid = map[string]bool{}
	}
	p.readySaid[id] = true
	return true
}

// noteFailure keeps, following, the failure the daemon's events say it
// keeps hitting, for the error a stopped wait returns.
func (p *progress) noteFailure(e state.Event) {
	switch {
	case e.Failing:
		p.daemonErr = strings.TrimPrefix(e.Message, "error: ")
	case e.Recovered:
		p.daemonErr = ""
	}
}

// sawReady says that a replica's container (id) became ready after took,
// and, unless following, records it with the container, so that a follower
// tells which container the line is about.
func (p *progress) sawReady(replica, id string, took time.Duration) {
	e := p.c.report(p.set, replica, "%s ready (%s)", replica, took)
	if !p.following {
		e.Observed, e.Container = true, id
		p.c.record(e)
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

func (c *Controller) created(cs plan.ContainerStatus) time.Time {
	if t, ok := c.createdAt.Load(cs.ID); ok {
		return t.(time.Time)
	}
	return cs.Created
}

var (
	quotedRe    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	countdownRe = regexp.MustCompile(` in (?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:s|ms)\b`)
)

// sameWait is a waiting message with its quoted output and countdowns left
// out: a probe's output often carries times or counters, and a new one with
// every probe is not a new reason to wait; nor is a back-off's "recreating it
// in 4m25s" a new reason when it says 4m23s at the next pass.
func sameWait(w string) string {
	return countdownRe.ReplaceAllString(quotedRe.ReplaceAllString(w, `"…"`), " in …")
}
