package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/health"
)

// Input is everything Plan decides from. It is a value: Plan does no I/O and
// reads no clock.
type Input struct {
	Set             config.Set // desired, with defaults applied
	CurrentRevision string
	UpdateRevision  string
	// Paused stops replacements for an update; scaling still works.
	Paused   bool
	Observed Observed
	Now      time.Time
	// Backoff is the crash-loop back-off of each ordinal whose replica (or
	// init container) keeps failing (State.CrashLoops): it holds back the
	// recreation of a failed replica and the rerun of a failed init container,
	// and says which ordinals are being restarted.
	Backoff map[int]Backoff
	// InitContainers lists, per revision (at least the current and the update
	// one), the names of its init containers in the order they run.
	InitContainers map[string][]string
	// Networks are the networks of each revision (at least the current and
	// the update one), by revision name, the first the one a replica is
	// created on: a replica is judged detached against every one of its own
	// revision's. A revision missing here has the set's networks.
	Networks map[string][]string
	// CondemnedVolumes are the ordinals whose volumes go with their replica
	// (State.CondemnedVolumes, see condemn): marked by a pass that found the
	// replica outside the range under whenScaled: Delete. Only their volumes
	// are ever removed by a pass, once no container of the ordinal is left.
	CondemnedVolumes []int
	// Refused holds, per ordinal, the last refusal of its create or start that
	// a retry does not cure (a held host port: State.Failures): the ordinal
	// alone is not tried again before RetryAt, while the set's other replicas
	// go on.
	Refused map[int]Refusal
	// Stopped: the set is stopped (ostset stop; see stopped.go).
	Stopped bool
	// StoppedIDs are the containers the stopped set holds stopped
	// (State.StoppedIDs): started again, not recreated, once it is started.
	StoppedIDs []string
}

// Refusal is an ordinal's last create or start that the engine refused for
// good, and when to try it again.
type Refusal struct {
	Reason  string
	RetryAt time.Time
}

// Backoff is one ordinal's crash-loop back-off, as the planner takes it.
type Backoff struct {
	// After: no recreation of the ordinal's failed replica, and no rerun of
	// its failed init container, before this.
	After time.Time
	// Revision is the revision the back-off was earned at: it holds back only
	// a replica (or init container) to be made at that revision. One to be
	// made at another (a fixed template, a rollback) starts afresh, as a new
	// pod does in Kubernetes. Empty: any revision (a record from before).
	Revision string
	// Restarting: the ordinal's replica exited (or was cut off from its
	// network) and was removed to be brought back, and its successor is not
	// created yet (it waits for its init
	// containers, or its create failed). It is created out of order, as the
	// rest of a restart.
	Restarting bool
}

// ActionKind is what an action does.
type ActionKind int

// Action kinds.
const (
	ActCreate ActionKind = iota
	ActStart
	ActDelete
	ActDeleteVolume
	ActCreateInit // create and start an init container
	ActDeleteInit // remove an init container
	ActConnect    // connect a running replica to the networks of its revision it lacks
	ActStop       // stop a replica, keeping its container (a stopped set)
)

func (k ActionKind) String() string {
	return [...]string{"create", "start", "delete", "delete-volume", "create-init", "delete-init", "connect", "stop"}[k]
}

// Action is one step for the executor.
type Action struct {
	Kind     ActionKind
	Ordinal  int
	Name     string // replica, init container or volume name
	ID       string // container ID (start, delete)
	Revision string // revision to create at; for delete, the revision it had
	Reason   string
	// Releases: a delete that takes the ordinal out of the set, so its retained
	// volumes go stale until the ordinal comes back.
	Releases bool
	// Failed: a delete of a replica that exited, to recreate it, or of an init
	// container that failed, to run it again.
	Failed bool
	// Exited: a delete of a replica that exited, whatever the reason for the
	// delete (a scale-down too): its last lines are kept (logs --previous).
	Exited bool
	// Recreate, on the delete of a replica that exited, is the revision its
	// replacement is created at as soon as it is removed, by the same pass:
	// what the next pass would create, without a pass between (the reaction
	// to a crash is one removal and one create, as for a replica removed by
	// hand). Empty when the replacement needs init containers first.
	Recreate string
	// Successor, on the delete of a replica that exited or was cut off from
	// its network, is the revision its replacement runs (Recreate, unless init
	// containers must run first): the crash-loop back-off of an exit is
	// counted for it, and the ordinal is restarting until it is created
	// (Backoff.Restarting).
	Successor string
	// Init is the init container's name in the template (ActCreateInit, ActDeleteInit).
	Init string
}

func (a Action) String() string {
	s := a.Kind.String() + " " + a.Name
	if a.Kind == ActCreate || a.Kind == ActCreateInit {
		s += " at " + a.Revision
	}
	return s + ": " + a.Reason
}

// Plan is the outcome of one planning pass.
type Plan struct {
	Actions []Action
	// Waiting says what the set waits for before it can go on.
	Waiting []string
	Status  Status
	// Complete: the rollout is done (every ordinal available, nothing condemned,
	// and under RollingUpdate every ordinal at or above the partition updated).
	Complete bool
	// RequeueAt is when a replica becomes available by minReadySeconds alone.
	RequeueAt time.Time
	// Held says what a paused rollout holds back; it does not keep the plan from
	// being complete, since only a resume can change it.
	Held string
	// Blocked lists the containers without the set's label that hold a name the
	// plan needs (each also a line of Waiting): only a person can clear them.
	Blocked []Conflict
	// CondemnedVolumes are Input.CondemnedVolumes as this pass leaves them
	// (see condemn): the engine records them before it carries the actions
	// out, so that a replica removed from then on takes its volumes along.
	CondemnedVolumes []int
}

// String renders the plan for golden tests and debugging.
func (p Plan) String() string {
	var b strings.Builder
	for _, a := range p.Actions {
		fmt.Fprintln(&b, a)
	}
	for _, w := range p.Waiting {
		fmt.Fprintln(&b, "wait", w)
	}
	if p.Held != "" {
		fmt.Fprintln(&b, "held", p.Held)
	}
	if p.Complete {
		fmt.Fprintln(&b, "complete")
	}
	return b.String()
}

type planner struct {
	in        Input
	set       config.Set
	start     int
	end       int
	monotonic bool
	minReady  time.Duration
	byOrdinal replicaIndex
	foreign   map[int]Foreign
	inits     map[int][]InitContainer // observed init containers by ordinal
	// foreignInits are containers without the set's labels holding an init
	// container's name, by name.
	foreignInits map[string]Foreign
	acted        map[int]bool // ordinals with an action in this plan
	// recreateHeld: a paused Recreate rollout keeps replicas of older
	// revisions, so a replica created meanwhile takes the current one.
	recreateHeld bool
	plan         Plan
}

// MakePlan decides the next steps for one set. In OrderedReady it returns at most
// one replica step; in Parallel every step that can be taken now.
func MakePlan(in Input) Plan {
	p := newPlanner(in)
	p.plan.Status = p.status()
	if !p.heldElsewhere() && !p.stopped() {
		p.volumes()
		p.condemnedInits()
		if p.recreate() && p.replicasInRange() && p.condemned() {
			p.update()
		}
	}
	p.plan.Complete = len(p.plan.Actions) == 0 && p.complete()
	p.plan.Status.Waiting = p.plan.Waiting
	if p.plan.Held != "" {
		p.plan.Status.Waiting = append(slices.Clone(p.plan.Waiting), p.plan.Held)
	}
	if p.plan.Status.CurrentRevision != in.UpdateRevision && p.allUpdatedAndReady() {
		// As Kubernetes' completeRollingUpdate: the updated replicas are now the current ones.
		p.plan.Status.CurrentRevision = in.UpdateRevision
		p.plan.Status.CurrentReplicas = p.plan.Status.UpdatedReplicas
	}
	return p.plan
}

func newPlanner(in Input) *planner {
	p := &planner{
		in:        in,
		set:       in.Set,
		start:     in.Set.FirstOrdinal(),
		end:       in.Set.EndOrdinal(),
		monotonic: in.Set.PodManagementPolicy != config.Parallel,
		minReady:  time.Duration(in.Set.MinReadySeconds) * time.Second,
		foreign:   map[int]Foreign{},
		inits:     map[int][]InitContainer{},
		acted:     map[int]bool{},
	}
	p.plan.CondemnedVolumes = in.CondemnedVolumes
	p.foreignInits = map[string]Foreign{}
	for _, c := range in.Observed.Inits {
		p.inits[c.Ordinal] = append(p.inits[c.Ordinal], c)
	}
	p.byOrdinal = newReplicaIndex(in.Observed.Replicas, p.start, p.end)
	for _, f := range in.Observed.Foreign {
		if ord, ok := ParseReplicaName(in.Set.Name, f.Name); ok {
			p.foreign[ord] = f
		} else if _, _, ok := ParseInitName(in.Set.Name, f.Name); ok {
			p.foreignInits[f.Name] = f
		}
	}
	return p
}

func (p *planner) inRange(ord int) bool { return ord >= p.start && ord < p.end }

// revisionFor is the revision a new replica of ord is created at: ordinals below
// the partition keep the current revision, as Kubernetes does.
func (p *planner) revisionFor(ord int) string {
	if p.set.UpdateStrategy.Type == config.RollingUpdate && ord < p.set.Partition() && p.in.CurrentRevision != "" {
		return p.in.CurrentRevision
	}
	if p.recreateHeld && p.in.CurrentRevision != "" {
		return p.in.CurrentRevision
	}
	return p.in.UpdateRevision
}

func (p *planner) ready(r *Replica) bool { return health.Ready(hc(r)) }

func (p *planner) available(r *Replica) bool {
	return health.Available(hc(r), p.minReady, p.in.Now)
}

func hc(r *Replica) health.Container {
	return health.Container{State: r.State, Health: r.Health, ReadySince: r.ReadySince, Probed: r.Probed, Unstarted: r.Unstarted}
}

func (p *planner) act(a Action) {
	p.plan.Actions = append(p.plan.Actions, a)
	p.acted[a.Ordinal] = true
}

func (p *planner) wait(format string, args ...any) {
	p.plan.Waiting = append(p.plan.Waiting, fmt.Sprintf(format, args...))
}

// blocked waits for a container that holds a name the set needs without
// belonging to it: ostset never touches it, so the wait lasts until a person
// removes or renames it.
func (p *planner) blocked(f Foreign) {
	c := foreignConflict(p.set.Name, f)
	p.wait("%s", c.Message)
	p.plan.Blocked = append(p.plan.Blocked, c)
}

// replicasInRange walks the desired ordinals upwards, creating what is missing and
// recreating what failed. It reports whether the later phases may run: in
// OrderedReady only when every ordinal is available and nothing was done.
// In OrderedReady the walk stops at the first ordinal it has to wait for or
// act on, except for restarts (see restart).
func (p *planner) replicasInRange() bool {
	held := false
	for ord := p.start; ord < p.end; ord++ {
		switch {
		case held:
			p.restart(ord)
		case !p.replicaInRange(ord) && p.monotonic:
			held = true
		}
	}
	return !held && (!p.monotonic || len(p.plan.Actions) == 0)
}

// restart brings back, above the ordinal an OrderedReady walk stopped at, a
// replica whose container exited: it is removed and recreated (after its
// crash-loop back-off), and a successor still to be created after such a
// removal (Backoff.Restarting: its init containers, or a create that failed)
// is created, whatever the ordinals below it are doing. OrderedReady orders
// the creation of missing replicas, scaling and updates, not restarts: in
// Kubernetes an exited container of a StatefulSet's pod is restarted in
// place by the kubelet, with its back-off and without any ordering. Held in
// order, replicas that all exited at once (a host's crash, an engine
// restart) never come back when the lowest one becomes ready only with its
// peers (a quorum: Galera, RabbitMQ, etcd). A replica cut off from its
// network (detached) is repaired the same way: it is as unreachable as an
// exited one, and a removed network cuts off every replica at once.
func (p *planner) restart(ord int) {
	r, ok := p.byOrdinal.get(ord)
	switch {
	case ok && p.stoppedByCommand(r):
	case ok && (health.Failed(hc(r)) || p.detached(*r)):
		p.replicaInRange(ord)
	case !ok && p.in.Backoff[ord].Restarting:
		p.replicaInRange(ord)
	}
}

// replicaInRange handles one ordinal; false means the set has to wait for it.
func (p *planner) replicaInRange(ord int) bool {
	rp, ok := p.byOrdinal.get(ord)
	if !ok {
		if f, taken := p.foreign[ord]; taken {
			p.blocked(f)
			return false
		}
		if p.removesVolumeOf(ord) {
			p.wait("%s not created until its old volumes are removed (whenScaled: Delete)", ReplicaName(p.set.Name, ord))
			return false
		}
		if p.refusedWait(ord) || !p.initialized(ord) {
			return false
		}
		p.act(Action{Kind: ActCreate, Ordinal: ord, Name: ReplicaName(p.set.Name, ord), Revision: p.revisionFor(ord), Reason: p.createReason(ord)})
		return false
	}
	r := rp
	if p.leftoverInits(*r) {
		return false
	}
	// The name is made only when a step or a wait needs it: a pass over a
	// converged set makes none.
	name := func() string { return ReplicaName(p.set.Name, ord) }
	switch {
	case p.stoppedByCommand(r):
		if p.refusedWait(ord) {
			return false
		}
		p.act(Action{Kind: ActStart, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision, Reason: "set started (it was stopped by ostset stop)"})
		return false
	case health.Failed(hc(r)):
		rev := p.revisionFor(ord)
		if after := p.heldUntil(ord, rev); !after.IsZero() {
			p.wait("%s exited again%s; recreating it in %s (crash-loop back-off)", name(), parenthesised(r.waitDetail()), after.Sub(p.in.Now).Round(time.Second))
			p.requeueAt(after)
			return false
		}
		a := Action{Kind: ActDelete, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision, Reason: "exited" + parenthesised(r.waitDetail()) + "; it will be recreated", Failed: true, Exited: true, Successor: rev}
		if len(p.in.InitContainers[rev]) == 0 {
			a.Recreate = rev
		}
		p.act(a)
		return false
	case r.State == StateRemoving:
		p.wait("%s being removed", name())
		return false
	case p.detached(*r):
		p.act(Action{Kind: ActDelete, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision, Successor: p.revisionFor(ord),
			Reason: fmt.Sprintf("not attached to network %s (removed, or disconnected by hand); it will be recreated on it", p.network(r.Revision))})
		return false
	case len(p.unjoined(*r)) > 0:
		p.act(Action{Kind: ActConnect, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision,
			Reason: fmt.Sprintf("not attached to network %s (removed, or disconnected by hand)", strings.Join(p.unjoined(*r), ", "))})
		return false
	case !p.ready(r) && p.stuckOnOldRevision(*r):
		p.act(Action{Kind: ActDelete, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision,
			Reason: fmt.Sprintf("not ready at %s; replacing with %s", r.Revision, p.revisionFor(ord))})
		return false
	case r.State == StateCreated:
		if p.refusedWait(ord) {
			return false
		}
		p.act(Action{Kind: ActStart, Ordinal: ord, Name: name(), ID: r.ID, Revision: r.Revision, Reason: "created but not started"})
		return false
	case !p.ready(r):
		p.wait("%s not ready (%s)", name(), describeState(*r))
		return false
	case !p.available(r):
		p.wait("%s not available yet (minReadySeconds %d)", name(), p.set.MinReadySeconds)
		p.requeueAt(health.AvailableAt(hc(r), p.minReady))
		return false
	}
	return true
}

// detached: a running replica without an endpoint on the network of its own
// revision it was created on (the first), is cut off from its peers (the
// network was removed, or the container disconnected by hand) and is
// recreated at once, whatever the update strategy: the container names that
// network's ID as its own, so a network made again is joined by a new
// container. One that lacks only another network of its revision is
// connected to it again, without a restart (unjoined). A replica still on the network of an
// older revision is not detached: the network is part of the revision, so a
// change of network rolls as any other change does (see update), highest
// ordinal first, within the partition and maxUnavailable, and not at all
// under OnDelete.
func (p *planner) detached(r Replica) bool {
	if r.State != StateRunning || r.Networks == nil {
		return false
	}
	return !slices.Contains(r.Networks, p.network(r.Revision))
}

// unjoined lists the networks of a running replica's revision, after the
// first, that it has no endpoint on: they are connected again (ActConnect).
func (p *planner) unjoined(r Replica) []string {
	if r.State != StateRunning || r.Networks == nil {
		return nil
	}
	var out []string
	for _, n := range p.networks(r.Revision)[1:] {
		if !slices.Contains(r.Networks, n) {
			out = append(out, n)
		}
	}
	return out
}

// networks are the networks of a revision, the first the one its replicas
// are created on (see Input.Networks).
func (p *planner) networks(rev string) []string {
	if ns := p.in.Networks[rev]; len(ns) > 0 && ns[0] != "" {
		return ns
	}
	return p.set.NetworkNames()
}

// network is the network a replica of a revision is created on.
func (p *planner) network(rev string) string { return p.networks(rev)[0] }

// stuckOnOldRevision: under RollingUpdate, a replica that is not ready and at a
// revision that is neither the one it should run nor the current one (an
// abandoned update) is replaced at once instead of being waited for, so reverting
// a bad template heals the set with no manual deletes. A replica at the current
// revision that is briefly unhealthy is waited for as usual.
func (p *planner) stuckOnOldRevision(r Replica) bool {
	return p.set.UpdateStrategy.Type == config.RollingUpdate && !p.in.Paused &&
		r.Ordinal >= p.set.Partition() && r.Revision != p.revisionFor(r.Ordinal) && r.Revision != p.in.CurrentRevision
}

// refusedWait waits for an ordinal whose last create or start the engine
// refused for good (Input.Refused) until it is tried again, and reports
// whether it does: only that ordinal is held back (and, in OrderedReady, the
// ones above it, as for any wait), never the set's other replicas, nor the
// answer to their events.
func (p *planner) refusedWait(ord int) bool {
	r, ok := p.in.Refused[ord]
	if !ok || !p.in.Now.Before(r.RetryAt) {
		return false
	}
	p.wait("%s cannot start (%s); trying again in %s", ReplicaName(p.set.Name, ord), r.Reason, r.RetryAt.Sub(p.in.Now).Round(time.Second))
	p.requeueAt(r.RetryAt)
	return true
}

// heldUntil is when the crash-loop back-off of ord lets a replica (or init
// container) be made at rev; zero when it does not hold it back. The back-off
// belongs to the revision it was earned at (Backoff.Revision), so neither a
// fixed template, nor `rollout undo`, nor an automatic rollback waits for it.
func (p *planner) heldUntil(ord int, rev string) time.Time {
	b, ok := p.in.Backoff[ord]
	if !ok || !p.in.Now.Before(b.After) || (b.Revision != "" && b.Revision != rev) {
		return time.Time{}
	}
	return b.After
}

func (p *planner) requeueAt(t time.Time) {
	if !t.IsZero() && (p.plan.RequeueAt.IsZero() || t.Before(p.plan.RequeueAt)) {
		p.plan.RequeueAt = t
	}
}

// condemned removes replicas outside the desired range, highest ordinal first.
// It reports whether the update phase may run.
func (p *planner) condemned() bool {
	var out []Replica
	for _, r := range p.in.Observed.Replicas {
		if !p.inRange(r.Ordinal) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ordinal > out[j].Ordinal })
	for _, r := range out {
		p.condemn(r.Ordinal)
	}
	for _, r := range out {
		if r.State == StateRemoving {
			p.wait("%s being removed", r.Name)
			if p.monotonic {
				return false
			}
			continue
		}
		if len(p.inits[r.Ordinal]) > 0 {
			// Its init containers go first (condemnedInits), as leftoverInits has it.
			if p.monotonic {
				return false
			}
			continue
		}
		p.act(Action{Kind: ActDelete, Ordinal: r.Ordinal, Name: r.Name, ID: r.ID, Revision: r.Revision, Reason: "scale down", Releases: true, Exited: health.Failed(hc(&r))})
		if p.monotonic {
			return false
		}
	}
	return !p.monotonic || len(out) == 0
}

// update replaces replicas not at the update revision, from the highest ordinal
// down to the partition, keeping at most maxUnavailable unavailable.
func (p *planner) update() {
	if p.set.UpdateStrategy.Type != config.RollingUpdate {
		return
	}
	var stale []Replica
	for ord := p.end - 1; ord >= max(p.start, p.set.Partition()); ord-- {
		if r, ok := p.byOrdinal.get(ord); ok && r.Revision != p.in.UpdateRevision && r.State != StateRemoving && !p.acted[ord] {
			stale = append(stale, *r)
		}
	}
	if len(stale) == 0 {
		return
	}
	if p.in.Paused {
		p.plan.Held = fmt.Sprintf("rollout paused with %d replicas not at %s", len(stale), p.in.UpdateRevision)
		return
	}
	budget := p.set.MaxUnavailableCount() - p.unavailable()
	replace := func(r Replica) {
		p.act(Action{Kind: ActDelete, Ordinal: r.Ordinal, Name: r.Name, ID: r.ID, Revision: r.Revision,
			Reason: fmt.Sprintf("update %s -> %s", r.Revision, p.in.UpdateRevision)})
	}
	if !p.monotonic {
		// Parallel: an old replica that is unavailable anyway is replaced
		// first and spends nothing (Kubernetes' two phases): maxUnavailable
		// bounds what the rollout takes down, and these are down already.
		// Counted against it, a few broken old replicas would stall the
		// rollout that replaces them.
		stale = slices.DeleteFunc(stale, func(r Replica) bool {
			if !p.available(&r) {
				replace(r)
				return true
			}
			return false
		})
	}
	if budget <= 0 {
		if len(stale) > 0 {
			p.wait("%d replicas unavailable (maxUnavailable %d)", p.unavailable(), p.set.MaxUnavailableCount())
		}
		return
	}
	for _, r := range stale[:min(budget, len(stale))] {
		replace(r)
	}
}

func (p *planner) unavailable() int {
	n := 0
	for ord := p.start; ord < p.end; ord++ {
		if r, ok := p.byOrdinal.get(ord); !ok || !p.available(r) {
			n++
		}
	}
	return n
}

func (p *planner) complete() bool {
	if len(p.plan.Waiting) > 0 {
		return false
	}
	if p.in.Stopped { // every replica stopped: a stop is complete
		return true
	}
	for _, r := range p.in.Observed.Replicas {
		if !p.inRange(r.Ordinal) {
			return false
		}
	}
	for ord := p.start; ord < p.end; ord++ {
		r, ok := p.byOrdinal.get(ord)
		if !ok || !p.available(r) {
			return false
		}
		if (p.set.UpdateStrategy.Type == config.RollingUpdate || p.set.UpdateStrategy.Type == config.Recreate) && !p.in.Paused && ord >= p.set.Partition() && r.Revision != p.in.UpdateRevision {
			return false
		}
	}
	return true
}

// allUpdatedAndReady: when every desired replica runs the update revision and is
// ready, the update revision becomes the current one.
func (p *planner) allUpdatedAndReady() bool {
	for ord := p.start; ord < p.end; ord++ {
		r, ok := p.byOrdinal.get(ord)
		if !ok || r.Revision != p.in.UpdateRevision || !p.ready(r) {
			return false
		}
	}
	return true
}

func describeState(r Replica) string {
	s := r.State
	if r.State == StateRunning && r.Health != HealthNone {
		s = "health: " + r.Health
	}
	if why := r.waitDetail(); why != "" {
		s += ": " + why
	}
	return s
}

// ShortID is a container ID as status shows it: its first 12 characters.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
