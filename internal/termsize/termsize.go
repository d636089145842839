// Package termsize reports a terminal's new size whenever it changes, for an
// exec session's tty: on SIGWINCH where there is one, by polling on Windows
// (as the docker CLI does).
package termsize

import "golang.org/x/term"

// Watch sends the terminal's size as [height, width] each time it changes,
// until stop is called. A slow reader misses sizes in between, never the
// last one it is sent.
func Watch(fd int) (sizes <-chan [2]uint, stop func()) {
	out := make(chan [2]uint, 1)
	changed, stopWatch := watch()
	go func() {
		for range changed {
			if w, h, err := term.GetSize(fd); err == nil {
				select {
				case out <- [2]uint{uint(h), uint(w)}:
				default:
				}
			}
		}
	}()
	return out, stopWatch
}
