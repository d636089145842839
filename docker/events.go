package docker

import (
	"context"
	"fmt"
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

// Watch signals (coalescing, never blocking) whenever a container of the set
// changes. The event stream is open when Watch returns; the channel is closed
// when ctx ends or the stream fails.
func (r *Runtime) Watch(ctx context.Context, set string) (<-chan struct{}, error) {
	out := make(chan struct{}, 1)
	err := r.readEvents(ctx, plan.LabelSet+"="+set, func() { close(out) }, func(e engine.SetEvent) bool {
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
// on one subscription (engine.EventSource). The channel is closed when ctx ends
// or the stream fails; events are dropped rather than block the stream for long
// only if the receiver stops reading, which the daemon never does.
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

// readEvents is the one reader of container event streams (Watch, WatchSets):
// it subscribes to the events of label and hands each event of a set to
// handle, in one goroutine, until ctx ends, the stream fails or handle
// returns false; then it calls closed. The stream is open when it returns.
func (r *Runtime) readEvents(ctx context.Context, label string, closed func(), handle func(engine.SetEvent) bool) error {
	msgs, errs, err := r.subscribe(ctx, label)
	if err != nil {
		return err
	}
	go func() {
		defer closed()
		for {
			select {
			case <-ctx.Done():
				return
			case <-errs: //nolint:errcheck // a closed channel is how the receiver learns the stream failed
				return
			case m := <-msgs:
				e := engine.SetEvent{
					Set:    m.Actor.Attributes[plan.LabelSet],
					ID:     m.Actor.ID,
					Name:   m.Actor.Attributes["name"],
					Action: string(m.Action),
					Time:   time.Unix(0, m.TimeNano),
				}
				if e.Set == "" {
					continue
				}
				if !handle(e) {
					return
				}
			}
		}
	}()
	return nil
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
