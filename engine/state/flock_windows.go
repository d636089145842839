//go:build windows

package state

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the lock lives: one byte far past any content. Windows
// locks are mandatory, so a lock on the content would stop another process
// from reading the holder's pid that the lock file carries.
const lockOffset = 1 << 62

// lockFile takes a LockFileEx lock on f: exclusive or shared; when wait is
// false and another process holds a conflicting lock, it returns errLocked at
// once. Closing f releases it.
func lockFile(f *os.File, exclusive, wait bool) error {
	var flags uint32
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}

// unlockFile releases f's lock without closing it.
func unlockFile(f *os.File) error {
	ol := &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

// renameOpenFiles: Windows refuses to rename (or remove) a file that a process
// holds open without FILE_SHARE_DELETE, which Go's os.OpenFile does not ask for.
const renameOpenFiles = false

// ownerMismatch: the state directory's ACL, not a uid, says who may change it
// on Windows (%LOCALAPPDATA% is the user's own); there is no uid to compare.
func ownerMismatch(os.FileInfo) (uid int, mismatch bool) { return 0, false }
