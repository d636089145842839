package docker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// watchedActions are the container events that change what Observe reports.
// A replica's exit is die, and stop after a docker stop: die comes before the
// container list shows the exit (the engine's observation inspects the
// containers that died, see engine.ObserveOptions.Died), stop after it.
// Healthcheck probes also emit exec_create/exec_start/exec_die events on every
// probe; they are left out so a healthy set does not wake the controller. The
// engine matches "health_status" as a prefix of "health_status: healthy".
var watchedActions = []string{
	"create", "start", "restart", "die", "stop", "pause", "unpause",
	"destroy", "rename", "update", "oom", "health_status",
}

// watchedNetworkActions are the network events that change what Observe
// reports without a container event: a replica disconnected by hand (or
// before its network is removed), and a network removed (the cached ID goes
// stale, and a created replica's start would fail).
var watchedNetworkActions = []string{"disconnect", "destroy"}

// Watch signals (coalescing, never blocking) whenever a container of the set
// changes or is disconnected from a network. A network removed wakes no
// watch: its replicas were disconnected first (Docker refuses to remove a
// network with endpoints), and its cached ID is dropped as the event is
// read. The event streams are open when Watch returns; the channel is closed
// when ctx ends or a stream fails.
func (r *Runtime) Watch(ctx context.Context, set string) (<-chan struct{}, error) {
	out := make(chan struct{}, 1)
	err := r.readEvents(ctx, plan.LabelSet+"="+set, func() { close(out) }, func(e engine.SetEvent) bool {
		if e.Set != set {
			return true // another set's container left a network, or a network went
		}
		r.died.Saw(e)
		select {
		case out <- struct{}{}:
		default:
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("watch set %s: %w", set, err)
	}
	return out, nil
}

// DiedUnanswered implements engine.DiesSeen with the dies Watch saw.
func (r *Runtime) DiedUnanswered(set string) bool { return r.died.Unanswered(set) }

// WatchSets streams the events of every container that carries the set label,
// and the network events of those containers and of every network (Set "":
// see engine.SetEvent), on one subscription (engine.EventSource). The channel
// is closed when ctx ends or the stream fails; events are dropped rather than
// block the stream for long only if the receiver stops reading, which the
// daemon never does.
func (r *Runtime) WatchSets(ctx context.Context) (<-chan engine.SetEvent, error) {
	out := make(chan engine.SetEvent, 64)
	err := r.readEvents(ctx, plan.LabelSet, func() { close(out) }, func(e engine.SetEvent) bool {
		select {
		case out <- e:
			return true
		case <-ctx.Done():
			return false
		}
	})
	if err != nil {
		return nil, fmt.Errorf("watch sets: %w", err)
	}
	return out, nil
}

// readEvents is the one reader of event streams (Watch, WatchSets): it
// subscribes to the container events of label and to network events, and
// hands each event of a set's container, and each removal of a network, to
// handle, in one goroutine, until ctx ends, a stream fails or handle returns
// false; then it calls closed. The streams are open when it returns.
func (r *Runtime) readEvents(ctx context.Context, label string, closed func(), handle func(engine.SetEvent) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	msgs, errs, err := r.subscribe(ctx, label)
	if err != nil {
		cancel()
		return err
	}
	nets, netErrs := r.subscribeNetworks(ctx)
	owners := &containerSets{}
	go func() {
		defer cancel()
		defer closed()
		for {
			var e engine.SetEvent
			select {
			case <-ctx.Done():
				return
			case <-errs: //nolint:errcheck // a closed channel is how the receiver learns the stream failed
				return
			case <-netErrs: //nolint:errcheck // as above
				return
			case m := <-msgs:
				e = engine.SetEvent{
					Set:    m.Actor.Attributes[plan.LabelSet],
					ID:     m.Actor.ID,
					Name:   m.Actor.Attributes["name"],
					Action: string(m.Action),
					Time:   time.Unix(0, m.TimeNano),
				}
				owners.saw(e)
			case m := <-nets:
				e = r.networkEvent(ctx, m, owners)
			}
			if e.Set == "" && e.Network == "" {
				continue
			}
			if !handle(e) {
				return
			}
		}
	}()
	return nil
}

// networkEvent turns a network event into the event of a set: a container
// of a set disconnected from a network (the set found by the container's
// labels), or a network removed (Set ""), whose cached ID is dropped at once.
// A disconnect of a container that is not a set's is the zero SetEvent.
func (r *Runtime) networkEvent(ctx context.Context, m events.Message, owners *containerSets) engine.SetEvent {
	name := m.Actor.Attributes["name"]
	e := engine.SetEvent{Network: name, Action: "network " + string(m.Action), Time: time.Unix(0, m.TimeNano)}
	if m.Action == events.ActionDestroy {
		r.forgetNetwork(name)
		return e
	}
	id := m.Actor.Attributes["container"]
	set, known := owners.of(id)
	if !known {
		ictx, cancel := r.bound(ctx, 0)
		res, err := r.cli.ContainerInspect(ictx, id, client.ContainerInspectOptions{})
		cancel()
		if err == nil && res.Container.Config != nil {
			set = res.Container.Config.Labels[plan.LabelSet]
			e.Name = strings.TrimPrefix(res.Container.Name, "/")
		}
		owners.note(id, set) // gone, or not a set's: nothing of a set to answer
	}
	if set == "" {
		return engine.SetEvent{}
	}
	e.Set, e.ID = set, id
	return e
}

// containerSets remembers which set each container a network event named
// belongs to ("" for none), so that a container's every stop is not one
// inspect more. It is bounded: forgotten as a whole when it grows large.
type containerSets struct{ sets map[string]string }

const containerSetsMax = 4096

func (c *containerSets) of(id string) (string, bool) {
	set, ok := c.sets[id]
	return set, ok
}

func (c *containerSets) note(id, set string) {
	if c.sets == nil || len(c.sets) >= containerSetsMax {
		c.sets = map[string]string{}
	}
	c.sets[id] = set
}

// saw notes the container of a set's event, and forgets a removed one.
func (c *containerSets) saw(e engine.SetEvent) {
	if e.Action == "destroy" {
		delete(c.sets, e.ID)
		return
	}
	if e.Set != "" && e.ID != "" {
		c.note(e.ID, e.Set)
	}
}

// subscribe opens a container event stream filtered on label (key or key=value).
// The SDK returns once the engine has answered the request, so events from then on
// are delivered; a failure to connect is reported before that, by Ping.
func (r *Runtime) subscribe(ctx context.Context, label string) (<-chan events.Message, <-chan error, error) {
	if err := r.Ping(ctx); err != nil {
		return nil, nil, err
	}
	f := make(client.Filters).
		Add("type", string(events.ContainerEventType)).
		Add("label", label).
		Add("event", watchedActions...)
	res := r.cli.Events(ctx, client.EventsListOptions{Filters: f})
	return res.Messages, res.Err, nil
}

// subscribeNetworks opens the stream of network events that concern sets
// (watchedNetworkActions). Network events carry no container labels, so
// they cannot be filtered by the set label as container events are.
func (r *Runtime) subscribeNetworks(ctx context.Context) (<-chan events.Message, <-chan error) {
	f := make(client.Filters).
		Add("type", string(events.NetworkEventType)).
		Add("event", watchedNetworkActions...)
	res := r.cli.Events(ctx, client.EventsListOptions{Filters: f})
	return res.Messages, res.Err
}
