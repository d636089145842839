package daemon

import (
	"context"
	"slices"
	"sync"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// observations is the daemon's copy of each set's last observation, kept
// current by Docker's events, so that the pass answering a replica's removal
// creates its replacement without listing the set again: that list is a round
// trip to the engine between the destroy event and the create.
//
// Only a pass that answers an event of the set is given the copy (Daemon.process
// drops it for any other), and only while it is known to be what Docker's
// container events say:
//   - it was taken by a pass that found nothing to do, with no init or
//     foreign container (an init container's log, which the pass reads,
//     changes without events; a foreign one sends the daemon none);
//   - no event of the set other than destroy arrived from the moment that
//     observation began (an event that arrived while the engine answered the
//     list may or may not be in it);
//   - a destroy only takes its container out, by ID: a removed container is
//     gone for good, whenever its event arrives;
//   - the event stream has been open all along (events are missed while it
//     is down; a reconnect drops every copy).
//
// A die is never answered from the copy, and not from the container list
// alone either: Docker sends die before its list shows the exit, so a list
// taken at once can still show the replica running, and the pass would find
// nothing to do. The IDs of the containers that died since the last
// observation go with the next one (ObserveOptions.Died), which reads their
// state by inspect, as the engine has it once the event is out.
//
// A replica's state, health and revision change only with one of its events.
// What changes without a container event is older in the copy: whether a
// replica is attached to its network (Replica.Networks), the set's volumes, foreign
// containers, why a replica is not ready (a probe's output). Those are seen
// by the next pass that lists the set: any pass that answers no event (the
// 30 s resync at the latest), or any after an event other than a destroy. A
// create that collides with a container the copy did not have fails, or
// adopts it if this state directory made it (docker.Runtime.CreateReplica),
// and the retry lists.
//
// The set's lock no longer makes what a pass sees current, as a list taken
// under it does: another process that drove the set (a command that started
// before the daemon) may have released the lock before its container events
// reached the daemon. A pass in that window plans from the copy without that
// process's last change; what it would create is adopted or refused as above,
// and the event, when it arrives, drops the copy.
type observations struct {
	mu   sync.Mutex
	live bool // the event stream is open: nothing is kept while it is not
	sets map[string]*observation
}

type observation struct {
	gen   uint64 // bumped by every event but destroy, and by drops
	valid bool
	obs   plan.Observed
	opts  engine.ObserveOptions
	// died holds the containers whose die event no observation has answered
	// yet, with the gen of the event.
	died map[string]uint64
	// answers, while answering: the gen at which the pass in flight began the
	// observation it plans from; the dies up to it are answered once the pass
	// ends, unless it plans again (see settle).
	answers   uint64
	answering bool

	// The observation of the pass in flight: the gen when it began, and
	// the containers destroyed since.
	taken     *plan.Observed
	takenOpts engine.ObserveOptions
	takenGen  uint64
	gone      map[string]bool
}

func newObservations() *observations {
	return &observations{sets: map[string]*observation{}}
}

func (o *observations) setLocked(name string) *observation {
	s, ok := o.sets[name]
	if !ok {
		s = &observation{}
		o.sets[name] = s
	}
	return s
}

// get returns a copy of the set's observation, if it is current and was
// taken with opts.
func (o *observations) get(set string, opts engine.ObserveOptions) (plan.Observed, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.sets[set]
	if !o.live || s == nil || !s.valid || len(s.died) > 0 || !sameOptions(s.opts, opts) {
		return plan.Observed{}, false
	}
	return cloneObserved(s.obs), true
}

// sameOptions: an observation taken with a was taken as b asks. Died is not
// compared: a kept observation never has any (see get).
func sameOptions(a, b engine.ObserveOptions) bool {
	return a.Timings == b.Timings && a.Logs == b.Logs
}

// begin notes that an observation of the set is about to be taken, and
// returns the containers whose die it must answer, sorted.
func (o *observations) begin(set string) (uint64, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.setLocked(set)
	s.taken, s.gone = nil, map[string]bool{}
	var died []string
	for id := range s.died {
		died = append(died, id)
	}
	slices.Sort(died)
	return s.gen, died
}

// took keeps the observation begun at gen until the pass ends (settle), and
// notes that it answers the dies seen before it began.
func (o *observations) took(set string, gen uint64, opts engine.ObserveOptions, obs plan.Observed) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.setLocked(set)
	opts.Died = nil
	s.taken, s.takenGen, s.takenOpts = new(cloneObserved(obs)), gen, opts
	s.answers, s.answering = gen, true
}

// diedUnanswered reports whether a die of the set arrived that the pass's
// observation does not answer: one that came while it was taken, or since
// (or, for a pass given the kept observation, any: the copy is served only
// while none is pending).
func (o *observations) diedUnanswered(set string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.sets[set]
	if s == nil {
		return false
	}
	for _, g := range s.died {
		if !s.answering || g > s.answers {
			return true
		}
	}
	return false
}

// settle ends a pass of the set: one that found nothing to do keeps the
// observation it took, if nothing but destroys happened since it began;
// one that acted or failed drops what is kept. The dies its observation
// answered are forgotten, unless the pass planned again (answered false):
// the observation it plans from next inspects them again, since Docker's
// list may still show them running.
func (o *observations) settle(set string, idle, answered bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.setLocked(set)
	if s.answering && answered {
		for id, g := range s.died {
			if g <= s.answers {
				delete(s.died, id)
			}
		}
	}
	s.answering = false
	taken := s.taken
	s.taken = nil
	switch {
	case !idle || !o.live:
		s.valid = false
	case taken == nil: // the pass was given the kept observation
	case s.takenGen != s.gen:
		s.valid = false
	default:
		obs := without(*taken, s.gone)
		s.obs, s.opts, s.valid = obs, s.takenOpts, settled(obs)
	}
	s.gone = nil
}

// settled reports whether an observation may be kept: nothing being
// initialised, nothing foreign.
func settled(obs plan.Observed) bool {
	return len(obs.Inits) == 0 && len(obs.Foreign) == 0
}

// event updates the set's observation with a Docker event.
func (o *observations) event(e engine.SetEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.setLocked(e.Set)
	if e.Action != "destroy" || e.ID == "" {
		s.drop()
		if e.Action == "die" && e.ID != "" {
			if s.died == nil {
				s.died = map[string]uint64{}
			}
			s.died[e.ID] = s.gen
		}
		return
	}
	delete(s.died, e.ID) // gone: nothing to inspect
	if s.gone != nil {
		s.gone[e.ID] = true
	}
	if s.valid {
		s.obs = without(s.obs, map[string]bool{e.ID: true})
	}
}

// forget drops a set that is gone from the store.
func (o *observations) forget(set string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.sets, set)
}

// streaming says whether the event stream is open; either way, what was
// kept, and what is being taken, is dropped.
func (o *observations) streaming(live bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.live = live
	for _, s := range o.sets {
		s.drop()
	}
}

// drop forgets the set's observation.
func (o *observations) drop(set string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.setLocked(set).drop()
}

func (s *observation) drop() {
	s.gen++
	s.valid = false
}

// without returns obs less the containers with the given IDs.
func without(obs plan.Observed, gone map[string]bool) plan.Observed {
	if len(gone) == 0 {
		return obs
	}
	out := cloneObserved(obs)
	out.Replicas = slices.DeleteFunc(out.Replicas, func(r plan.Replica) bool { return gone[r.ID] })
	out.Inits = slices.DeleteFunc(out.Inits, func(x plan.InitContainer) bool { return gone[x.ID] })
	return out
}

func cloneObserved(obs plan.Observed) plan.Observed {
	obs.Replicas = slices.Clone(obs.Replicas)
	obs.Foreign = slices.Clone(obs.Foreign)
	obs.Volumes = slices.Clone(obs.Volumes)
	obs.Inits = slices.Clone(obs.Inits)
	obs.OwnedElsewhere = slices.Clone(obs.OwnedElsewhere)
	return obs
}

// observing serves a pass the set's kept observation when there is one, and
// otherwise observes Docker and hands the result to the cache.
type observing struct {
	engine.Runtime
	o *observations
}

func (r observing) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	if obs, ok := r.o.get(set, opts); ok {
		return obs, nil
	}
	gen, died := r.o.begin(set)
	opts.Died = append(slices.Clone(opts.Died), died...)
	obs, err := r.Runtime.Observe(ctx, set, opts)
	if err == nil {
		r.o.took(set, gen, opts, obs)
	}
	return obs, err
}

// DiedUnanswered implements engine.DiesSeen: a pass planned from an
// observation that a die arrived during (or after) plans again.
func (r observing) DiedUnanswered(set string) bool { return r.o.diedUnanswered(set) }
