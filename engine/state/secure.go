package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The state directory holds set files' environment, database passwords
// included: it is private to its user (0700, files 0600). An existing one made
// looser (by an earlier version, or by hand) is tightened the first time a
// process uses it; one that belongs to another user is refused, since that user
// could change what ostset runs. Securing it also removes the temporary files
// that processes killed in the middle of an atomic write left behind.

// secured remembers, per state directory, the outcome of securing it in this process.
var secured sync.Map // dir → error (nil when fine)

// secure makes sure the state directory exists, belongs to this user and is
// private, once per process.
func (s Store) secure() error {
	if v, ok := secured.Load(s.Dir); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	err := securePrivate(s.Dir)
	if err == nil {
		err = migrateFormat(s.Dir)
	}
	if err != nil {
		secured.Store(s.Dir, err)
	} else {
		secured.Store(s.Dir, nil)
	}
	return err
}

// staleTempAge is how old a temporary file of an atomic write must be to be
// taken for one a killed process left: a write takes milliseconds.
const staleTempAge = time.Minute

// atomicDirs are the directories, relative to the state directory, that ostset
// writes files in atomically; others (a manifest's ConfigMap files) hold what
// users named.
var atomicDirs = map[string]bool{"": true, "/sets": true, "/volume-use": true, "/events": true}

// staleTemp says whether a file called name, last modified at mod, is a
// temporary file of an atomic write (writeFileAtomic's ".<file>.<random>",
// the state ID's ".id.<random>", the event log trim's "<log>.tmp") that a process
// killed before its rename left behind.
func staleTemp(name string, mod, now time.Time) bool {
	temp := strings.HasPrefix(name, ".") && (strings.Contains(name, ".json.") || strings.HasPrefix(name, ".id.")) ||
		strings.HasSuffix(name, ".tmp")
	return temp && now.Sub(mod) > staleTempAge
}

func securePrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if uid, mismatch := ownerMismatch(fi); mismatch {
		return fmt.Errorf("state directory %s belongs to uid %d, not to this user (uid %d): another user could change what ostset runs; use your own (--state-dir, OSTSET_STATE_DIR)",
			dir, uid, os.Geteuid())
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile
		}
		if err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil //nolint:nilerr // removed meanwhile
		}
		if !d.IsDir() && atomicDirs[strings.TrimPrefix(filepath.Dir(path), dir)] && staleTemp(d.Name(), info.ModTime(), time.Now()) {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("state directory: remove the stale temporary file %s: %w", path, err)
			}
			return nil
		}
		if info.Mode().Perm()&^want != 0 {
			if err := os.Chmod(path, info.Mode().Perm()&want); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("state directory: tighten %s: %w", path, err)
			}
		}
		return nil
	})
}
