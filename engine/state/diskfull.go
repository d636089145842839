package state

import (
	"errors"
	"fmt"
	"syscall"
)

// StateDirFullError is a write to the state directory that failed for lack of
// space (or of quota). The write left the file it replaces as it was (see
// writeFileAtomicTold), so nothing is lost: once space is freed, the next
// command carries on. A waiting command stops on it, since waiting frees no
// space; the daemon keeps retrying with back-off.
type StateDirFullError struct {
	// Dir is the state directory.
	Dir string
	// Op is what could not be written: "save the state of web".
	Op string
	// Err is the error of the write.
	Err error
}

func (e *StateDirFullError) Error() string {
	cause := "no space left on device"
	if errors.Is(e.Err, syscall.EDQUOT) {
		cause = "disk quota exceeded"
	}
	return fmt.Sprintf("state directory %s is full (%s): could not %s; nothing was lost, free space there and run the command again", e.Dir, cause, e.Op)
}

func (e *StateDirFullError) Unwrap() error { return e.Err }

// IsStateDirFull reports whether err is, or wraps, a *StateDirFullError.
func IsStateDirFull(err error) bool {
	var fe *StateDirFullError
	return errors.As(err, &fe)
}

// writeFailed wraps the error of a write to the state directory: a
// *StateDirFullError for a lack of space, else "op: err".
func (s Store) writeFailed(op string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &StateDirFullError{Dir: s.Dir, Op: op, Err: err}
	}
	return fmt.Errorf("%s: %w", op, err)
}
