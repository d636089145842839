//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an flock on f: exclusive or shared; when wait is false and
// another process holds a conflicting lock, it returns errLocked at once.
// Closing f releases it.
func lockFile(f *os.File, exclusive, wait bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	err := syscall.Flock(int(f.Fd()), how)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// unlockFile releases f's lock without closing it.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// renameOpenFiles: a file may be renamed while this process holds it open.
const renameOpenFiles = true

// ownerMismatch says whether fi belongs to a user other than this process's
// effective user, and which.
func ownerMismatch(fi os.FileInfo) (uid int, mismatch bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != os.Geteuid()
}
