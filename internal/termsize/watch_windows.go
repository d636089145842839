//go:build windows

package termsize

import (
	"os"
	"time"
)

// watch ticks every 250ms: a Windows console sends no signal when it is
// resized. Watch only passes a size on when it reads one.
func watch() (<-chan os.Signal, func()) {
	tick := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		defer close(tick)
		for {
			select {
			case <-done:
				return
			case <-t.C:
				select {
				case tick <- os.Interrupt:
				default:
				}
			}
		}
	}()
	return tick, func() { close(done) }
}
