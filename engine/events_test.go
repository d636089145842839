package engine

import (
	"fmt"
	"sync"
	"testing"
)

// The event log keeps the newest events when trimmed, and appends that race with
// a trim are not lost.
func TestEventLogTrim(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for i := range 3 * EventLogLimit {
		if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("event %d with some text to pass the size check", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.TrimEvents("web"); err != nil {
			t.Error(err)
		}
	})
	for i := range 50 {
		wg.Go(func() {
			if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("late %d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	events, _, err := s.Events("web", 0)
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, e := range events {
		if len(e.Message) >= 5 && e.Message[:5] == "late " {
			late++
		}
	}
	if late != 50 {
		t.Errorf("%d of 50 appends racing the trim survived", late)
	}
	if n := len(events); n < EventLogLimit || n > EventLogLimit+50 {
		t.Errorf("%d events after trim, want %d to %d", n, EventLogLimit, EventLogLimit+50)
	}
	if last := events[len(events)-1].Message; last[:5] != "late " && last != fmt.Sprintf("event %d with some text to pass the size check", 3*EventLogLimit-1) {
		t.Errorf("newest event lost: %q", last)
	}
}
