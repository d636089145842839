package engine

import (
	"maps"
	"slices"
	"sync"
)

// maxDies bounds the dies kept per set: a set no observation answers (a
// watcher of another set sees its events too) still has its dies noted, and a
// destroy forgets only one container. The oldest go first.
const maxDies = 256

// Dies holds, per set, the containers whose die event was seen and that no
// observation begun after the event has answered yet. Docker sends die before
// its container list shows the exit, so an observation woken by the event
// inspects them (ObserveOptions.Died). Watchers of events feed it (Saw), an
// observation takes what is pending and, once it succeeded, answers it.
type Dies struct {
	mu   sync.Mutex
	seq  uint64
	sets map[string]map[string]uint64 // set -> container ID -> seq of its die
}

// Saw takes in a container event: a die is noted, a destroy forgets the
// container (gone, nothing to inspect); other events change nothing.
func (d *Dies) Saw(e SetEvent) {
	if e.ID == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e.Action {
	case "die":
		if d.sets == nil {
			d.sets = map[string]map[string]uint64{}
		}
		ids := d.sets[e.Set]
		if ids == nil {
			ids = map[string]uint64{}
			d.sets[e.Set] = ids
		}
		d.seq++
		ids[e.ID] = d.seq
		if len(ids) > maxDies {
			oldest := slices.MinFunc(slices.Collect(maps.Keys(ids)), func(a, b string) int { return int(ids[a]) - int(ids[b]) })
			delete(ids, oldest)
		}
	case "destroy":
		d.forget(e.Set, func(id string, _ uint64) bool { return id == e.ID })
	}
}

// Pending returns the set's containers that died, sorted, and a mark for
// Answered.
func (d *Dies) Pending(set string) ([]string, uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.sets[set])), d.seq
}

// Unanswered reports whether a die of the set is pending.
func (d *Dies) Unanswered(set string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.sets[set]) > 0
}

// Answered forgets the set's dies seen by mark, once an observation that
// began after them succeeded.
func (d *Dies) Answered(set string, mark uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(set, func(_ string, seq uint64) bool { return seq <= mark })
}

func (d *Dies) forget(set string, drop func(id string, seq uint64) bool) {
	maps.DeleteFunc(d.sets[set], drop)
	if len(d.sets[set]) == 0 {
		delete(d.sets, set)
	}
}
