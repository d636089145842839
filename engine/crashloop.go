package engine

import (
	"sync"
	"time"
)

// Crash-loop back-off: the first recreation of a failed replica is immediate,
// then each one waits twice as long, from crashBackoff up to crashBackoffMax,
// until the replica is seen ready again (as Kubernetes' CrashLoopBackOff).
const (
	crashBackoff    = 10 * time.Second
	crashBackoffMax = 5 * time.Minute
)

type crash struct {
	count int
	after time.Time // no recreation before
}

// crashLoops remembers recent failures per set and ordinal, in memory.
type crashLoops struct {
	mu   sync.Mutex
	sets map[string]map[int]*crash
}

// backoff forgets ordinals whose replica is ready again and returns the
// recreation times still held back.
func (l *crashLoops) backoff(set string, replicas []Replica) map[int]time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	crashes := l.sets[set]
	for _, r := range replicas {
		if r.State == StateRunning && (r.Health == HealthNone || r.Health == HealthHealthy) {
			delete(crashes, r.Ordinal)
		}
	}
	out := map[int]time.Time{}
	for ord, c := range crashes {
		out[ord] = c.after
	}
	return out
}

// note records the failed replicas a plan recreates.
func (l *crashLoops) note(set string, actions []Action, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range actions {
		if !a.Failed {
			continue
		}
		if l.sets == nil {
			l.sets = map[string]map[int]*crash{}
		}
		if l.sets[set] == nil {
			l.sets[set] = map[int]*crash{}
		}
		c := l.sets[set][a.Ordinal]
		if c == nil {
			c = &crash{}
			l.sets[set][a.Ordinal] = c
		}
		c.after = now.Add(min(crashBackoff<<c.count, crashBackoffMax))
		c.count++
	}
}
