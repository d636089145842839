package engine

import (
	"context"
	"errors"
	"sync"
	"time"
)

// setLoop is one running per-set controller loop.
type setLoop struct {
	name   string
	cancel context.CancelFunc
}

// RunAll keeps every set of the store converged until ctx ends: one loop per set,
// started when the set appears in the store and stopped when it is deleted.
func (c *Controller) RunAll(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	loops := map[string]*setLoop{}
	defer func() {
		for _, l := range loops {
			l.cancel()
		}
	}()
	finished := make(chan *setLoop)
	tick := time.NewTicker(c.poll())
	defer tick.Stop()
	for {
		if names, err := c.Store.List(); err != nil {
			// The running loops go on; the list is read again at the next tick.
			c.logger().Error("list sets", "err", err)
		} else {
			c.syncLoops(ctx, &wg, loops, names, finished)
		}
		select {
		case <-ctx.Done():
			return nil
		case l := <-finished:
			if loops[l.name] == l { // a set deleted and made again has a new loop
				delete(loops, l.name)
			}
			l.cancel()
		case <-tick.C:
		}
	}
}

// syncLoops starts a loop for each new set and stops the loops of deleted ones.
func (c *Controller) syncLoops(ctx context.Context, wg *sync.WaitGroup, loops map[string]*setLoop, names []string, finished chan<- *setLoop) {
	want := map[string]bool{}
	for _, name := range names {
		want[name] = true
		if _, ok := loops[name]; ok {
			continue
		}
		lctx, cancel := context.WithCancel(ctx)
		l := &setLoop{name: name, cancel: cancel}
		loops[name] = l
		wg.Go(func() {
			err := c.Run(lctx, name)
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrUnknownSet) {
				c.emit(name, "", "controller stopped: %s", err)
			}
			select {
			case finished <- l:
			case <-ctx.Done():
			}
		})
	}
	for name, l := range loops {
		if !want[name] {
			l.cancel()
			delete(loops, name)
		}
	}
}
