//go:build !windows

package termsize

import (
	"os"
	"os/signal"
	"syscall"
)

// watch ticks on each SIGWINCH.
func watch() (<-chan os.Signal, func()) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	return winch, func() { signal.Stop(winch); close(winch) } // no delivery after Stop
}
