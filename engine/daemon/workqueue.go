package daemon

import (
	"container/heap"
	"sync"
	"time"
)

// workQueue hands set names to the daemon's workers, in the shape of
// client-go's workqueue: a name added many times before a worker takes it is
// taken once; a name is never given to two workers at once (added while a
// worker has it, it is queued again once that worker is done); and a name can
// be added for later (addAfter), the earliest time winning.
type workQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []string
	queued map[string]bool // in queue
	active map[string]bool // taken by a worker, not done
	dirty  map[string]bool // added while active: queue again at done
	later  laterHeap
	at     map[string]time.Time // each name's earliest time in later
	wake   chan struct{}        // the earliest time in later changed
	closed bool
}

func newWorkQueue() *workQueue {
	q := &workQueue{
		queued: map[string]bool{},
		active: map[string]bool{},
		dirty:  map[string]bool{},
		at:     map[string]time.Time{},
		wake:   make(chan struct{}, 1),
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// add queues name now.
func (q *workQueue) add(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(name)
}

func (q *workQueue) addLocked(name string) {
	switch {
	case q.closed, q.queued[name]:
	case q.active[name]:
		q.dirty[name] = true
	default:
		q.queued[name] = true
		q.queue = append(q.queue, name)
		q.cond.Signal()
	}
}

// addAfter queues name once d has passed, unless an earlier add for it is
// pending. A pending later add is dropped when the name is taken before it.
func (q *workQueue) addAfter(name string, d time.Duration) {
	if d <= 0 {
		q.add(name)
		return
	}
	t := time.Now().Add(d)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if old, ok := q.at[name]; ok && !t.Before(old) {
		return
	}
	q.at[name] = t
	heap.Push(&q.later, laterItem{name: name, at: t})
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// get blocks until a name is queued and takes it; ok is false once the
// queue is shut down (names still queued are dropped).
func (q *workQueue) get() (name string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return "", false
	}
	name, q.queue = q.queue[0], q.queue[1:]
	delete(q.queued, name)
	delete(q.at, name) // taken now: a pending later add is moot
	q.active[name] = true
	return name, true
}

// done releases a name taken by get, queueing it again if it was added since.
func (q *workQueue) done(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active, name)
	if q.dirty[name] {
		delete(q.dirty, name)
		q.addLocked(name)
	}
}

// shutDown makes every get return ok=false and stops runLater.
func (q *workQueue) shutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// runLater moves names added for later into the queue when their time comes,
// until shutDown. One timer serves every name.
func (q *workQueue) runLater() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return
		}
		now := time.Now()
		next := time.Duration(-1)
		for q.later.Len() > 0 {
			it := q.later[0]
			if at, ok := q.at[it.name]; !ok || !at.Equal(it.at) {
				heap.Pop(&q.later) // superseded by an earlier add, or taken already
				continue
			}
			if it.at.After(now) {
				next = it.at.Sub(now)
				break
			}
			heap.Pop(&q.later)
			delete(q.at, it.name)
			q.addLocked(it.name)
		}
		q.mu.Unlock()
		if next < 0 {
			next = time.Hour
		}
		t.Reset(next)
		select {
		case <-t.C:
		case <-q.wake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
	}
}

type laterItem struct {
	name string
	at   time.Time
}

type laterHeap []laterItem

func (h laterHeap) Len() int           { return len(h) }
func (h laterHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h laterHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *laterHeap) Push(x any)        { *h = append(*h, x.(laterItem)) }
func (h *laterHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
