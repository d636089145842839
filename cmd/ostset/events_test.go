package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

// syncBuffer is a buffer a command writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ostset events -f prints every event once, also when the log is trimmed while
// it follows.
func TestEventsFollowAcrossTrim(t *testing.T) {
	dir := t.TempDir()
	store := state.Store{Dir: dir}
	if err := store.Save(state.State{Spec: config.Set{Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	add := func(prefix string, n int) {
		for i := range n {
			// long enough that 2*EventLogLimit events pass the trim's size check
			m := fmt.Sprintf("%s %d with some text to pass the size check", prefix, i)
			if err := store.AppendEvent(state.Event{Time: time.Now(), Set: "web", Message: m}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("old", 2*state.EventLogLimit)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, []string{"events", "web", "-f", "--state-dir", dir}, &out, &errb) }()
	waitFor := func(m string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), m); {
			if time.Now().After(deadline) {
				t.Fatalf("ostset events -f did not print %q; stderr: %s", m, errb.String())
			}
			time.Sleep(10 * time.Millisecond) // the command polls the log every 300ms
		}
	}
	waitFor(fmt.Sprintf("old %d ", 2*state.EventLogLimit-1))
	add("unread", 1)
	if err := store.TrimEvents("web"); err != nil {
		t.Fatal(err)
	}
	if events, _, _ := store.Events("web", 0); len(events) != state.EventLogLimit {
		t.Fatalf("%d events after the trim, want %d", len(events), state.EventLogLimit)
	}
	add("new", 1)
	waitFor("new 0 ")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	printed := map[string]int{}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines {
		_, m, _ := strings.Cut(l, "  ")
		printed[m]++
		if printed[m] == 2 {
			t.Errorf("printed twice: %q", m)
		}
	}
	if want := 2*state.EventLogLimit + 2; len(lines) != want || len(printed) != want {
		t.Errorf("printed %d lines, %d different events; want %d", len(lines), len(printed), want)
	}
}
