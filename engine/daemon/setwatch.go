package daemon

import (
	"context"
	"slices"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// Changes is a watch of the sets (WatchChanges).
type Changes struct {
	// C receives the names of the sets that may have changed; "" means
	// every set. It is never closed.
	C    <-chan string
	died *engine.Dies
}

// WatchChanges tells a watcher (get -w, view) which sets may have changed:
// a container of the set changed (Docker events), or another process changed
// the set's file in the state directory (up, scale, rollout, down, a daemon's
// pass). It sends set names; "" means every set (the state watch overflowed,
// or the event stream was reopened after a failure and events may have been
// missed). Nothing is polled.
//
// Both subscriptions are open when WatchChanges returns, so a status read
// after it misses nothing. A failing event stream is reopened with back-off
// (onErr hears of it, and of state-watch errors) until ctx ends; the reader
// stops at ctx's end too (the channel is never closed, as two goroutines send
// on it).
//
// A status read at once after a die event may still show the replica running:
// Docker sends die before its container list shows the exit. A controller
// whose runtime is Changes.Runtime's inspects the containers whose die the
// watch saw (engine.ObserveOptions.Died), as the daemon does.
func WatchChanges(ctx context.Context, store state.Store, src engine.EventSource, onErr func(error)) (*Changes, error) {
	sw, err := newStateWatch(store)
	if err != nil {
		return nil, err
	}
	events, err := src.WatchSets(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan string, 64)
	send := func(name string) {
		select {
		case out <- name:
		case <-ctx.Done():
		}
	}
	if err := sw.run(ctx, send, onErr); err != nil {
		return nil, err
	}
	died := &engine.Dies{}
	go func() {
		backoff := time.Duration(0)
		for {
			opened := time.Now()
			for e := range events {
				died.Saw(e)
				send(e.Set)
			}
			if ctx.Err() != nil {
				return
			}
			if time.Since(opened) > eventBackoffMax {
				backoff = 0
			}
			for {
				backoff = nextBackoff(backoff, eventBackoffMax)
				onErr(errEventStreamEnded)
				if !sleepCtx(ctx, backoff) {
					return
				}
				if events, err = src.WatchSets(ctx); err == nil {
					break
				}
				onErr(err)
			}
			send("") // events were missed while the stream was down
		}
	}()
	return &Changes{C: out, died: died}, nil
}

// Runtime is rt, observing each set with the containers whose die event the
// watch saw and no observation has answered yet (ObserveOptions.Died).
func (c *Changes) Runtime(rt engine.Runtime) engine.Runtime {
	return diedRuntime{Runtime: rt, d: c.died}
}

type diedRuntime struct {
	engine.Runtime
	d *engine.Dies
}

func (r diedRuntime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	died, mark := r.d.Pending(set)
	if len(died) == 0 {
		return r.Runtime.Observe(ctx, set, opts)
	}
	opts.Died = append(slices.Clone(opts.Died), died...)
	obs, err := r.Runtime.Observe(ctx, set, opts)
	if err == nil {
		r.d.Answered(set, mark)
	}
	return obs, err
}

type watchError string

func (e watchError) Error() string { return string(e) }

const errEventStreamEnded = watchError("docker event stream ended; reconnecting")
