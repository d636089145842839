package engine

import (
	"context"
	"errors"
	"sync"
	"time"
)

// RunAll keeps every set of the store converged until ctx ends: one loop per set,
// started when the set appears in the store and stopped when it is deleted.
func (c *Controller) RunAll(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	loops := map[string]context.CancelFunc{}
	defer func() {
		for _, cancel := range loops {
			cancel()
		}
	}()
	finished := make(chan string)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		names, err := c.Store.List()
		if err != nil {
			return err
		}
		want := map[string]bool{}
		for _, name := range names {
			want[name] = true
			if _, ok := loops[name]; ok {
				continue
			}
			lctx, cancel := context.WithCancel(ctx)
			loops[name] = cancel
			wg.Go(func() {
				err := c.Run(lctx, name)
				if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrUnknownSet) {
					c.emit(name, "", "controller stopped: %s", err)
				}
				select {
				case finished <- name:
				case <-ctx.Done():
				}
			})
		}
		for name, cancel := range loops {
			if !want[name] {
				cancel()
				delete(loops, name)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case name := <-finished:
			delete(loops, name)
		case <-tick.C:
		}
	}
}
