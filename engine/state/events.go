package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A set's event log, events/<set>.jsonl, holds one JSON object per line, oldest
// first: an Event with the line's sequence number,
//
//	{"seq":42,"time":"…","set":"web","replica":"web-0","message":"web-0 ready (1.2s)"}
//
// An appender numbers its line one above the newest line, under the log's lock,
// so numbers go up by one from line to line and stay with their event when a trim
// drops older lines. A reader remembers the last number it saw instead of a byte
// offset, which a trim invalidates. Lines written before the log was numbered
// have no "seq": such a line counts as one above the line before it (the first
// line of the file as 1), and a trim writes that number into the lines it keeps.
// Readers of the unnumbered format ignore the extra field.

// EventLogLimit is how many events a set's log keeps.
const EventLogLimit = 500

// eventLine is one line of the log. Event must not get a MarshalJSON method:
// embedded, it would replace this encoding and drop "seq".
type eventLine struct {
	Seq int64 `json:"seq,omitempty"`
	Event
}

// eventReadBlock is how much of the log a reader reads at a time, backwards from
// its end; a follower usually needs one block.
const eventReadBlock = 16 << 10

// eventLogStep, when set (by tests), is called at the named steps of the log's
// operations: "opened" (the log is open, not yet locked), and for a trim "temp
// created", "temp written" (synced, not yet renamed) and "renamed" (the
// directory not yet synced).
var eventLogStep func(step string)

func eventStep(step string) {
	if eventLogStep != nil {
		eventLogStep(step)
	}
}

func (s Store) eventFile(name string) string { return filepath.Join(s.Dir, "events", name+".jsonl") }

// AppendEvent adds one event to the set's log, numbered one above its newest;
// an event without a PID is recorded as this process's.
func (s Store) AppendEvent(e Event) error {
	if e.PID == 0 {
		e.PID = os.Getpid()
	}
	return s.withEventLog(e.Set, func(f *os.File, size int64) error {
		if size > 0 {
			var last [1]byte
			if _, err := f.ReadAt(last[:], size-1); err != nil {
				return err
			}
			if last[0] != '\n' {
				// A writer died within its line: end that line so that this one
				// reads on its own (the broken one is skipped as unreadable).
				if _, err := f.Write([]byte{'\n'}); err != nil {
					return err
				}
				size++
			}
		}
		_, newest, err := readEvents(f, size, math.MaxInt64)
		if err != nil {
			return err
		}
		line, err := json.Marshal(eventLine{Seq: newest + 1, Event: e})
		if err != nil {
			return err
		}
		if _, err = f.Write(append(line, '\n')); err != nil { // O_APPEND and one write: never interleaved
			// A full disk can take part of the line: cut it off, so that the
			// log ends where it did (the lock is still held).
			_ = f.Truncate(size)
			return s.writeFailed("append to the event log of "+e.Set, err)
		}
		return nil
	})
}

// withEventLog runs fn on the set's log, opened for appending, under an
// exclusive flock of the log, with the log's size once locked.
//
// The lock is on the log file itself rather than on a separate lock file: no
// lock file outlives the set, and an ostset of an earlier version, which locks
// the log too, still excludes this one while both run during an upgrade. Because
// a trim renames a new file over the log, the file a process opened may no
// longer be the log once it holds the lock; so it checks, under the lock, that
// the path still names the file it locked, and otherwise starts again on the new
// file. A trim renames only while holding the lock, so once the check passes the
// file stays the log until fn returns. (An earlier version does not check, so
// one appending while this one trims can still lose that event.)
func (s Store) withEventLog(name string, fn func(f *os.File, size int64) error) error {
	path := s.eventFile(name)
	if err := s.secure(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("event log of %s: %w", name, err)
	}
	for {
		f, size, err := lockEventLog(path)
		if err != nil {
			return fmt.Errorf("event log of %s: %w", name, err)
		}
		if f == nil {
			continue // replaced or removed meanwhile
		}
		err = fn(f, size)
		_ = f.Close() // releases the lock
		if err != nil {
			return fmt.Errorf("event log of %s: %w", name, err)
		}
		return nil
	}
}

// lockEventLog opens and locks the log at path, returning a nil file if the
// path no longer names the file it locked.
func lockEventLog(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, 0, err
	}
	eventStep("opened")
	if err := lockFile(f, true, true); err != nil {
		_ = f.Close()
		return nil, 0, err
	}
	locked, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, err
	}
	current, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		_ = f.Close()
		return nil, 0, err
	}
	if err != nil || !os.SameFile(locked, current) {
		_ = f.Close()
		return nil, 0, nil
	}
	return f, locked.Size(), nil
}

// Events returns the set's events numbered above after, oldest first, and the
// number to pass as after next time (the newest event's). Passing it back
// returns each event once, across trims; only events trimmed before they were
// read are missed. After 0 returns the whole log. A log whose newest event is
// numbered below after (deleted with its set and started again) is read from
// its start.
func (s Store) Events(name string, after int64) ([]Event, int64, error) {
	if err := s.readable(); err != nil {
		return nil, after, err
	}
	f, err := os.Open(s.eventFile(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, after, fmt.Errorf("event log of %s: %w", name, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, after, fmt.Errorf("event log of %s: %w", name, err)
	}
	events, newest, err := readEvents(f, st.Size(), after)
	if err == nil && newest < after {
		events, newest, err = readEvents(f, st.Size(), 0)
	}
	if err != nil {
		return nil, after, fmt.Errorf("event log of %s: %w", name, err)
	}
	return events, newest, nil
}

// EventSeq returns the number of the set's newest event (0 for an empty log):
// Events(name, EventSeq(name)) returns only the events recorded since.
func (s Store) EventSeq(name string) (int64, error) {
	if err := s.readable(); err != nil {
		return 0, err
	}
	f, err := os.Open(s.eventFile(name))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("event log of %s: %w", name, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("event log of %s: %w", name, err)
	}
	_, newest, err := readEvents(f, st.Size(), math.MaxInt64)
	if err != nil {
		return 0, fmt.Errorf("event log of %s: %w", name, err)
	}
	return newest, nil
}

// readEvents reads the first size bytes of a log backwards from the end, down to
// the newest line numbered at most after (or the start), and returns the events
// numbered above after, oldest first, and the number of the newest (0 if none).
// A last line without its newline is being written and is left for next time.
func readEvents(r io.ReaderAt, size, after int64) ([]Event, int64, error) {
	type parsed struct {
		line eventLine
		ok   bool
	}
	var lines []parsed // newest first
	err := linesBackward(r, size, func(raw []byte) bool {
		var p parsed
		p.ok = json.Unmarshal(raw, &p.line) == nil
		lines = append(lines, p)
		return !p.ok || p.line.Seq <= 0 || p.line.Seq > after
	})
	if err != nil {
		return nil, 0, err
	}
	var events []Event
	var seq int64
	for _, p := range slices.Backward(lines) {
		if !p.ok {
			continue // damaged: skipped, and not numbered
		}
		seq = numbered(p.line.Seq, seq)
		if seq > after {
			events = append(events, p.line.Event)
		}
	}
	return events, seq, nil
}

// numbered is a line's number: its own, or one above the line before it (prev)
// for a line written without one.
func numbered(own, prev int64) int64 {
	if own > 0 {
		return own
	}
	return prev + 1
}

// linesBackward calls fn with each complete line (newline included) of the first
// size bytes of r, newest first, until fn returns false.
func linesBackward(r io.ReaderAt, size int64, fn func(line []byte) bool) error {
	var buf []byte // the end of [pos, size) not yet passed to fn
	unterminated := true
	for pos := size; pos > 0; {
		n := min(pos, eventReadBlock)
		pos -= n
		chunk := make([]byte, n, int(n)+len(buf))
		if _, err := r.ReadAt(chunk, pos); err != nil {
			return err
		}
		buf = append(chunk, buf...)
		if unterminated {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			buf, unterminated = buf[:i+1], false
		}
		for len(buf) > 0 {
			i := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
			if i < 0 && pos > 0 {
				break // the line starts in a block not read yet
			}
			if !fn(buf[i+1:]) {
				return nil
			}
			buf = buf[:i+1]
		}
	}
	return nil
}

// TrimEvents keeps the newest EventLogLimit events once the log holds twice as
// many. It writes them to a new file and renames that over the log, under the
// log's lock: a crash at any point leaves the old or the new log complete, and
// appenders waiting for the lock move to the new file (see withEventLog).
func (s Store) TrimEvents(name string) error {
	path := s.eventFile(name)
	if st, err := os.Stat(path); err != nil || st.Size() < 2*EventLogLimit*64 {
		return nil // cheap check first: a short log has fewer lines than the limit
	}
	return s.withEventLog(name, func(f *os.File, size int64) error {
		data := make([]byte, size)
		if _, err := f.ReadAt(data, 0); err != nil {
			return err
		}
		if bytes.Count(data, []byte("\n")) <= 2*EventLogLimit {
			return nil
		}
		var kept [][]byte
		var seq int64
		for raw := range bytes.Lines(data) {
			if raw[len(raw)-1] != '\n' {
				break // a writer died within its line
			}
			var l eventLine
			if json.Unmarshal(raw, &l) != nil {
				continue // damaged
			}
			seq = numbered(l.Seq, seq)
			if l.Seq <= 0 { // written unnumbered: keep its number from now on
				l.Seq = seq
				line, err := json.Marshal(l)
				if err != nil {
					return err
				}
				raw = append(line, '\n')
			}
			kept = append(kept, raw)
		}
		if len(kept) <= 2*EventLogLimit {
			return nil
		}
		return replaceFile(path, bytes.Join(kept[len(kept)-EventLogLimit:], nil))
	})
}

// replaceFile replaces path by a file holding data: it writes data to a
// temporary file beside it, syncs that, renames it over path and syncs the
// directory, so that a crash leaves either the old or the new file whole. The
// temporary file has a fixed name: the caller holds the log's lock, and a file
// left by a crash is overwritten by the next trim.
func replaceFile(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	eventStep("temp created")
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		eventStep("temp written")
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	eventStep("renamed")
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	err = dir.Sync()
	if cerr := dir.Close(); err == nil {
		err = cerr
	}
	return err
}

// DeleteEvents removes the set's log, under its lock so that a trim under way
// cannot rename its result over the path afterwards.
func (s Store) DeleteEvents(name string) error {
	path := s.eventFile(name)
	remove := func() error {
		for _, p := range []string{path, path + ".tmp"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := remove(); err != nil { // a temporary file a crashed trim left
			return fmt.Errorf("event log of %s: %w", name, err)
		}
		return nil
	}
	return s.withEventLog(name, func(*os.File, int64) error { return remove() })
}

// Event is one thing the controller did or noticed, for progress output.
type Event struct {
	Time    time.Time `json:"time"`
	Set     string    `json:"set"`
	Replica string    `json:"replica,omitempty"`
	Message string    `json:"message"`
	// PID is the process that recorded the event: who acted.
	PID int `json:"pid,omitempty"`
	// Observed marks what any process watching the set sees for itself (a
	// replica became ready, a new reason to wait, a failed init container), as
	// opposed to what the recording process did or decided. A follower prints
	// its own observations, not these.
	Observed bool `json:"observed,omitempty"`
	// Failing marks the failure of a pass ("error: …"); it is recorded once
	// for as long as passes keep failing with the same message, and Recovered
	// marks the first pass that succeeded after it. A follower that starts
	// while the daemon keeps failing shows the failure from the log (see
	// lastFailure).
	Failing   bool `json:"failing,omitempty"`
	Recovered bool `json:"recovered,omitempty"`
	// Container is the short ID of the container a "created" or "ready"
	// event is about: a follower matches it to the container it sees, not to
	// an earlier one of the replica (a create whose start failed, removed
	// again), and says a "ready" line of the daemon's only once.
	Container string `json:"container,omitempty"`
}
