package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The state directory records the format its files are in, in the file
// "format". A version of ostset before the record wrote format 0. Fields added
// to a set's state file are optional, and a version ignores fields it does not
// know, so such a change keeps the format; a change that an earlier version
// would misread, or that needs the files rewritten, raises StateFormat and
// adds a step to formatSteps.
//
// The first process of a newer version to use a directory of an older format
// copies its files to backups/format-<old>-<time>/, runs the steps, and
// records the new format: once, under a lock, however many processes start at
// the same time. A directory of a newer format than this version reads is
// refused: an older ostset must not act on files it could misread.

// StateFormat is the format of the state directory this version reads and writes.
const StateFormat = 1

const formatFile = "format"

// formatSteps[i] turns a directory of format i into format i+1.
var formatSteps = []func(dir string) error{
	// 0 → 1: the files are read as they are; only the record is new.
	func(string) error { return nil },
}

// formatRecord is the content of the format file.
type formatRecord struct {
	Format int `json:"format"`
	// From and Backup: the format the directory was migrated from, and where
	// its files were copied first (relative to the directory).
	From     int       `json:"from"`
	Backup   string    `json:"backup,omitempty"`
	Migrated time.Time `json:"migrated"`
}

// FormatError is a state directory of a newer format than this version reads.
type FormatError struct {
	Dir    string
	Format int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("state directory %s is in format %d, written by a newer ostset; this one reads format %d: use the newer ostset", e.Dir, e.Format, StateFormat)
}

// migrateFormat brings the directory to StateFormat (see above).
func migrateFormat(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "locks"), 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "locks", "format.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	defer func() { _ = lock.Close() }() // releases the flock
	if err := lockFile(lock, true, true); err != nil {
		return fmt.Errorf("state directory: lock its format: %w", err)
	}
	current, err := readFormat(dir)
	if err != nil {
		return err
	}
	switch {
	case current == StateFormat:
		return nil
	case current > StateFormat:
		return &FormatError{Dir: dir, Format: current}
	}
	rec := formatRecord{Format: StateFormat, From: current, Migrated: time.Now().UTC()}
	if held, err := holdsState(dir); err != nil {
		return err
	} else if held {
		rec.Backup = filepath.Join("backups", fmt.Sprintf("format-%d-%s", current, rec.Migrated.Format("20060102T150405.000Z")))
		if err := backUp(dir, filepath.Join(dir, rec.Backup)); err != nil {
			_ = os.RemoveAll(filepath.Join(dir, rec.Backup)) // a part of a backup is none: the next process makes a whole one
			return Store{Dir: dir}.writeFailed("back up the state directory before migrating it", err)
		}
	}
	for f := current; f < StateFormat; f++ {
		if err := formatSteps[f](dir); err != nil {
			return fmt.Errorf("state directory %s: migrate format %d to %d: %w", dir, f, f+1, err)
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = writeFileAtomic(filepath.Join(dir, formatFile), append(data, '\n'))
	}
	if err != nil {
		return Store{Dir: dir}.writeFailed("record the state directory's format", err)
	}
	return nil
}

// readChecked remembers the state directories whose format this process has
// checked for reading (see readable).
var readChecked sync.Map // dir → struct{}

// readable checks, before a read, that this version reads the directory's
// format, once per process: a command that only reads (get, status, describe,
// events, logs, export, rollout history) refuses a directory of a newer format
// as a command that writes does, rather than misread it. A directory of an
// older format is migrated first, as by a write (see secure); one that does
// not exist holds nothing to misread and is left alone.
func (s Store) readable() error {
	if _, ok := readChecked.Load(s.Dir); ok {
		return nil
	}
	if v, ok := secured.Load(s.Dir); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	format, err := readFormat(s.Dir)
	if err != nil {
		return err
	}
	switch {
	case format > StateFormat:
		return &FormatError{Dir: s.Dir, Format: format}
	case format < StateFormat:
		if held, err := holdsState(s.Dir); err != nil {
			return err
		} else if held {
			return s.secure()
		}
	}
	readChecked.Store(s.Dir, struct{}{})
	return nil
}

// readFormat returns the directory's format: 0 without a record.
func readFormat(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, formatFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	var rec formatRecord
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		return 0, fmt.Errorf("state directory %s: read its format: %w", dir, err)
	}
	return rec.Format, nil
}

// stateDirs are the directories a migration backs up.
var stateDirs = []string{"sets", "volume-use", "events"}

// holdsState reports whether the directory holds any set's files.
func holdsState(dir string) (bool, error) {
	for _, d := range stateDirs {
		entries, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("state directory: %w", err)
		}
		if len(entries) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// backUp copies the state files (and the directory's ID) to backup, each file
// synced, then the backup's directories.
func backUp(dir, backup string) error {
	for _, d := range append(stateDirs, idFile) {
		src := filepath.Join(dir, d)
		err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(backup, rel), 0o700)
			}
			if !e.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return writeFileAtomic(filepath.Join(backup, rel), data)
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
