package daemon

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ostset/ostset/engine"
)

// Changes is a watch of the sets (WatchChanges).
type Changes struct {
	// C receives the names of the sets that may have changed; "" means
	// every set. It is never closed.
	C    <-chan string
	died *diedWatch
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
func WatchChanges(ctx context.Context, store engine.Store, src engine.EventSource, onErr func(error)) (*Changes, error) {
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
	died := &diedWatch{sets: map[string]map[string]uint64{}}
	go func() {
		backoff := time.Duration(0)
		for {
			opened := time.Now()
			for e := range events {
				died.event(e)
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

// maxDied bounds the dies kept per set: a set that no watcher observes (get
// -w SET watches one) still has its dies noted, and a destroy forgets only
// one container. The oldest go first.
const maxDied = 256

// diedWatch holds, per set, the containers whose die event was seen and no
// observation begun after it has succeeded, with the sequence number of the
// event.
type diedWatch struct {
	mu   sync.Mutex
	seq  uint64
	sets map[string]map[string]uint64
}

func (d *diedWatch) event(e engine.SetEvent) {
	if e.ID == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e.Action {
	case "die":
		ids := d.sets[e.Set]
		if ids == nil {
			ids = map[string]uint64{}
			d.sets[e.Set] = ids
		}
		d.seq++
		ids[e.ID] = d.seq
		if len(ids) > maxDied {
			oldest := slices.MinFunc(slices.Collect(maps.Keys(ids)), func(a, b string) int { return int(ids[a]) - int(ids[b]) })
			delete(ids, oldest)
		}
	case "destroy": // gone: nothing to inspect
		delete(d.sets[e.Set], e.ID)
		if len(d.sets[e.Set]) == 0 {
			delete(d.sets, e.Set)
		}
	}
}

// begin returns the set's containers that died, sorted, and a mark for answered.
func (d *diedWatch) begin(set string) ([]string, uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.sets[set])), d.seq
}

// answered forgets the set's dies seen by mark.
func (d *diedWatch) answered(set string, mark uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, seq := range d.sets[set] {
		if seq <= mark {
			delete(d.sets[set], id)
		}
	}
	if len(d.sets[set]) == 0 {
		delete(d.sets, set)
	}
}

type diedRuntime struct {
	engine.Runtime
	d *diedWatch
}

func (r diedRuntime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (engine.Observed, error) {
	died, mark := r.d.begin(set)
	if len(died) == 0 {
		return r.Runtime.Observe(ctx, set, opts)
	}
	opts.Died = append(slices.Clone(opts.Died), died...)
	obs, err := r.Runtime.Observe(ctx, set, opts)
	if err == nil {
		r.d.answered(set, mark)
	}
	return obs, err
}

type watchError string

func (e watchError) Error() string { return string(e) }

const errEventStreamEnded = watchError("docker event stream ended; reconnecting")
