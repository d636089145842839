package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// EventLogLimit is how many events a set's log keeps.
const EventLogLimit = 500

func (s Store) eventFile(name string) string { return filepath.Join(s.Dir, "events", name+".jsonl") }

// AppendEvent adds one event to the set's log, under the log's lock so that a
// concurrent trim cannot lose it.
func (s Store) AppendEvent(e Event) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	return s.withEventLog(e.Set, func(f *os.File) error {
		_, err := f.Write(append(line, '\n'))
		return err
	})
}

// withEventLog runs fn on the set's log file (opened for appending) under an
// exclusive flock.
func (s Store) withEventLog(name string, fn func(*os.File) error) error {
	path := s.eventFile(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	defer func() { _ = f.Close() }()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	if err := fn(f); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	return nil
}

// Events reads the set's log from byte offset on, returning the events and the
// offset to read from next time.
func (s Store) Events(name string, offset int64) ([]Event, int64, error) {
	f, err := os.Open(s.eventFile(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, offset, fmt.Errorf("event log: %w", err)
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.Size() < offset {
		offset = 0 // trimmed meanwhile: read again from the start
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, fmt.Errorf("event log: %w", err)
	}
	var events []Event
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // a partial last line is read next time
		}
		offset += int64(len(line))
		var e Event
		if json.Unmarshal(line, &e) == nil {
			events = append(events, e)
		}
	}
	return events, offset, nil
}

// TrimEvents keeps the newest EventLogLimit events once the log holds twice as
// many. It rewrites the file in place (same inode) under the log's lock, so
// appenders never write to a file that was replaced.
func (s Store) TrimEvents(name string) error {
	if st, err := os.Stat(s.eventFile(name)); err != nil || st.Size() < 2*EventLogLimit*64 {
		return nil // cheap check first: a short log has fewer lines than the limit
	}
	return s.withEventLog(name, func(f *os.File) error {
		data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
		if err != nil || bytes.Count(data, []byte("\n")) <= 2*EventLogLimit {
			return err
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		keep := bytes.Join(lines[len(lines)-1-EventLogLimit:], nil)
		if err := f.Truncate(0); err != nil {
			return err
		}
		_, err = f.Write(keep) // O_APPEND: written at the new end, 0
		return err
	})
}

// DeleteEvents removes the set's log.
func (s Store) DeleteEvents(name string) error {
	if err := os.Remove(s.eventFile(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("event log: %w", err)
	}
	return nil
}
