package daemon

import (
	"testing"
	"time"
)

func getWithin(t *testing.T, q *workQueue, d time.Duration) (string, bool) {
	t.Helper()
	type got struct {
		name string
		ok   bool
	}
	ch := make(chan got, 1)
	go func() { n, ok := q.get(); ch <- got{n, ok} }()
	select {
	case g := <-ch:
		return g.name, g.ok
	case <-time.After(d):
		return "", false
	}
}

// Names added many times before a worker takes them are taken once each, in order.
func TestWorkQueueDedups(t *testing.T) {
	q := newWorkQueue()
	for _, n := range []string{"a", "b", "a", "a", "b"} {
		q.add(n)
	}
	if len(q.queue) != 2 || q.queue[0] != "a" || q.queue[1] != "b" {
		t.Fatalf("queue %v, want [a b]", q.queue)
	}
}

// A name added while a worker has it is not handed to a second worker, and is
// queued again once the first is done.
func TestWorkQueueOneWorkerPerName(t *testing.T) {
	q := newWorkQueue()
	q.add("a")
	if n, _ := q.get(); n != "a" {
		t.Fatalf("got %q", n)
	}
	q.add("a")
	if len(q.queue) != 0 {
		t.Fatalf("a queued again while a worker has it: %v", q.queue)
	}
	q.done("a")
	if len(q.queue) != 1 || q.queue[0] != "a" {
		t.Fatalf("after done: queue %v, want [a]", q.queue)
	}
}

// addAfter queues a name when its time comes; the earliest time wins, and a
// take in between drops the pending later add.
func TestWorkQueueAddAfter(t *testing.T) {
	q := newWorkQueue()
	go q.runLater()
	defer q.shutDown()
	start := time.Now()
	q.addAfter("a", time.Hour)
	q.addAfter("a", 30*time.Millisecond)
	q.addAfter("a", time.Hour) // later than pending: ignored
	n, ok := getWithin(t, q, 5*time.Second)
	if !ok || n != "a" {
		t.Fatalf("got %q %v", n, ok)
	}
	if took := time.Since(start); took < 30*time.Millisecond {
		t.Fatalf("a came after %s, before its time", took)
	}
	q.done("a")

	q.addAfter("b", 50*time.Millisecond)
	q.add("b")
	if n, _ := getWithin(t, q, time.Second); n != "b" {
		t.Fatalf("got %q", n)
	}
	q.done("b")
	if n, ok := getWithin(t, q, 200*time.Millisecond); ok {
		t.Fatalf("the later add of b survived its take: got %q", n)
	}
}

// shutDown releases waiting workers.
func TestWorkQueueShutDown(t *testing.T) {
	q := newWorkQueue()
	done := make(chan bool)
	go func() { _, ok := q.get(); done <- ok }()
	q.shutDown()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("get returned ok after shutDown")
		}
	case <-time.After(time.Second):
		t.Fatal("get still blocked after shutDown")
	}
}
