package present

import (
	"io"
	"os"
	"sync"
)

// lockedWriter serialises writes: the waits of several sets print from their
// own goroutines, and a writer given to a command line run in-process (a
// buffer, a pipe wrapper) may not take concurrent writes. Files do, and stay
// files (a terminal is detected by its type).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Serialised returns the CLI's output writers, sharing one lock, except files.
func Serialised(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	mu := &sync.Mutex{}
	wrap := func(w io.Writer) io.Writer {
		if _, ok := w.(*os.File); ok || w == nil {
			return w
		}
		if _, ok := w.(lockedWriter); ok {
			return w
		}
		return lockedWriter{mu: mu, w: w}
	}
	return wrap(stdout), wrap(stderr)
}
