package state

import (
	"io"
	"os"
	"strconv"
)

// writePid writes this process's pid into the held daemon lock file f. A
// daemon whose pid is not there is one the CLI takes for none (see
// DaemonRunning), so a failed or short write is an error. A variable for the
// tests: a full disk cannot be had on demand.
var writePid = func(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	b := []byte(strconv.Itoa(os.Getpid()))
	n, err := f.WriteAt(b, 0)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return err
}
