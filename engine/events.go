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
)

// EventLogLimit is how many events a set's log keeps.
const EventLogLimit = 500

func (s Store) eventFile(name string) string { return filepath.Join(s.Dir, "events", name+".jsonl") }

// AppendEvent adds one event to the set's log (one JSON line, appended atomically).
func (s Store) AppendEvent(e Event) error {
	path := s.eventFile(e.Set)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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

// TrimEvents keeps the newest EventLogLimit events. The caller holds the set's lock.
func (s Store) TrimEvents(name string) error {
	path := s.eventFile(name)
	data, err := os.ReadFile(path)
	if err != nil || bytes.Count(data, []byte("\n")) <= 2*EventLogLimit {
		return nil
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	keep := bytes.Join(lines[len(lines)-1-EventLogLimit:], nil)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, keep, 0o644); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	return os.Rename(tmp, path)
}

// DeleteEvents removes the set's log.
func (s Store) DeleteEvents(name string) error {
	if err := os.Remove(s.eventFile(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("event log: %w", err)
	}
	return nil
}
