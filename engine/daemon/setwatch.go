package daemon

import (
	"context"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
)

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
func WatchChanges(ctx context.Context, store state.Store, src engine.EventSource, onErr func(error)) (<-chan string, error) {
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
	go func() {
		backoff := time.Duration(0)
		for {
			opened := time.Now()
			for e := range events {
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
	return out, nil
}

type watchError string

func (e watchError) Error() string { return string(e) }

const errEventStreamEnded = watchError("docker event stream ended; reconnecting")
