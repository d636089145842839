package daemon_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// goneEvents is an event source whose engine can be made to go away: while
// gone, every subscription fails.
type goneEvents struct {
	events
	tries int
}

func (e *goneEvents) WatchSets(ctx context.Context) (<-chan engine.SetEvent, error) {
	e.mu.Lock()
	e.tries++
	e.mu.Unlock()
	return e.events.WatchSets(ctx)
}

func (e *goneEvents) attempts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tries
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// While the engine is gone the daemon keeps running, says once that the
// engine is gone (not at every retry), and says when it is back; then it
// converges the set again by itself.
func TestDaemonSaysTheEngineIsGoneAndBack(t *testing.T) {
	rt := enginetest.New()
	ev := &goneEvents{}
	var out lockedBuffer
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: time.Hour,
		Log: slog.New(slog.NewTextHandler(&out, nil))}
	m := &countMetrics{}
	d := &daemon.Daemon{Controller: c, Events: ev, Resync: time.Hour, Metrics: m}
	store := c.Store // Run sets the controller's store's Saved hook: the test writes through a copy
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	apply(t, store, 2, "v1")
	awaitCondition(t, func() bool { return len(running(rt)) == 2 && ev.subscriptions() == 1 })

	ev.cut()
	rt.Exit("web-0") // its event is lost: the engine is gone
	awaitCondition(t, func() bool { return ev.attempts() >= 3 })
	log := out.String()
	if n := strings.Count(log, "docker engine gone"); n != 1 {
		t.Errorf("said %d times that the engine is gone over %d failed subscriptions, want once:\n%s", n, ev.attempts()-1, log)
	}
	if strings.Contains(log, "docker engine back") {
		t.Errorf("said the engine is back while it is gone:\n%s", log)
	}
	// The health check is told, with the reason.
	if gone := m.engineGone(); len(gone) == 0 || gone[len(gone)-1] == nil {
		t.Errorf("the metrics were told %v while the engine is gone", gone)
	}
	select {
	case err := <-done:
		t.Fatalf("the daemon ended while the engine was gone: %v", err)
	default:
	}

	ev.restore()
	awaitCondition(t, func() bool { return strings.Contains(out.String(), "docker engine back") })
	if gone := m.engineGone(); gone[len(gone)-1] != nil {
		t.Errorf("the metrics were told %v after the engine came back", gone)
	}
	awaitCondition(t, func() bool { return len(running(rt)) == 2 })
}
