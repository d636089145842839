package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// The set lock excludes a second holder and gives up when its context ends.
var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func TestStoreLock(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	unlock, err := s.Lock(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx, "web"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v, want a deadline error", err)
	}
	unlock()
	unlock2, err := s.Lock(context.Background(), "web")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlock2()
}

// Concurrent read-modify-write updates under the lock lose nothing.
func TestStoreUpdateSerialises(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, err := s.Update(context.Background(), "web", func(st *State, _ bool) error {
					st.Spec.Name = "web"
					st.Generation++
					return nil
				}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st, err := s.Load("web")
	if err != nil || st.Generation != 80 {
		t.Fatalf("generation %d (%v), want 80", st.Generation, err)
	}
}

func revSpec(image string) config.RevisionSpec {
	return config.RevisionSpec{Template: config.Template{Image: image}, ImageID: "sha256:" + image, ServiceName: "web", Network: "ostset"}
}

func historyNames(st State) []string {
	var names []string
	for _, r := range st.History() {
		names = append(names, fmt.Sprintf("%d:%s", r.Number, r.Spec.Template.Image))
	}
	return names
}

// History keeps revisionHistoryLimit revisions besides the current and update
// ones, which are never dropped; an earlier template comes back under a new number.
func TestRevisionHistory(t *testing.T) {
	limit := 2
	st := State{Spec: config.Set{Name: "web", RevisionHistoryLimit: &limit}}
	for _, img := range []string{"a", "b", "c", "d", "e"} {
		st.SetUpdateRevision(revSpec(img), "up "+img, t0)
		if img == "a" {
			st.CurrentRevision = st.UpdateRevision // a's rollout completed, the later ones did not
		}
		st.TrimHistory(plan.Observed{}) // the pass that follows
	}
	// current stays at a: a is kept, as is e (update).
	if got, want := historyNames(st), []string{"1:a", "3:c", "4:d", "5:e"}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if changed := st.SetUpdateRevision(revSpec("c"), "up c again", t0); !changed {
		t.Error("going back to c did not change the update revision")
	}
	st.TrimHistory(plan.Observed{})
	if got, want := historyNames(st), []string{"1:a", "4:d", "5:e", "6:c"}; !slices.Equal(got, want) {
		t.Errorf("after reapplying c: %v, want %v", got, want)
	}
	if _, err := st.Undo(0, "undo", t0); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Revision(st.UpdateRevision); r.Spec.Template.Image != "e" || r.Number != 7 {
		t.Errorf("undo went to %s as %d, want e as 7", r.Spec.Template.Image, r.Number)
	}
	if _, err := st.Undo(99, "undo", t0); err == nil {
		t.Error("undo to a missing revision succeeded")
	}
}

// A revision a replica still runs (below the partition, or under OnDelete)
// is live, as in Kubernetes: never dropped, and not counted against the
// limit; once no replica runs it, it goes as any other.
func TestRevisionHistoryKeepsWhatReplicasRun(t *testing.T) {
	limit := 1
	st := State{Spec: config.Set{Name: "web", RevisionHistoryLimit: &limit}}
	var names []string
	for _, img := range []string{"a", "b", "c", "d"} {
		st.SetUpdateRevision(revSpec(img), "up "+img, t0)
		names = append(names, st.UpdateRevision)
		if img == "a" {
			st.CurrentRevision = st.UpdateRevision
		}
	}
	obs := plan.Observed{Replicas: []plan.Replica{{Ordinal: 0, Revision: names[0]}, {Ordinal: 1, Revision: names[1]}}}
	st.TrimHistory(obs)
	if got, want := historyNames(st), []string{"1:a", "2:b", "3:c", "4:d"}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v (b runs, c is the one kept)", got, want)
	}
	st.TrimHistory(plan.Observed{Replicas: obs.Replicas[:1]})
	if got, want := historyNames(st), []string{"1:a", "3:c", "4:d"}; !slices.Equal(got, want) {
		t.Errorf("history %v once b runs no more, want %v", got, want)
	}
}

// A process that takes the lock again at once after a pass (as a converge loop
// does) queues behind a waiter that arrived meanwhile, instead of starving it.
func TestLockIsHandedOverFairly(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	unlock, err := s.Lock(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []string
		said  []string
		wg    sync.WaitGroup
	)
	took := func(who string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, who)
	}
	waiting := make(chan struct{})
	waiter := s
	waiter.Waiting = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if said = append(said, msg); len(said) == 1 {
			close(waiting)
		}
	}
	wg.Go(func() {
		unlock, err := waiter.Lock(context.Background(), "web")
		if err != nil {
			t.Error(err)
			return
		}
		took("waiter")
		time.Sleep(10 * time.Millisecond)
		unlock()
	})
	// The waiter has its ticket and found the lock held: it is in the queue.
	// (Its ticket file alone is not enough: a waiter that queued but had not
	// tried the lock yet when it was released takes it without waiting.)
	select {
	case <-waiting:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter never waited")
	}
	unlock()
	again, err := s.Lock(context.Background(), "web") // at once, as the next pass
	if err != nil {
		t.Fatal(err)
	}
	took("holder again")
	again()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(order, []string{"waiter", "holder again"}) {
		t.Errorf("lock taken in order %v, want the waiter first", order)
	}
	if len(said) != 1 || !strings.Contains(said[0], fmt.Sprintf("held by pid %d", os.Getpid())) {
		t.Errorf("waiting messages %q, want one naming the holder", said)
	}
}

// Update waits for the lock only as long as its context allows.
func TestUpdateHonoursItsContext(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	unlock, err := s.Lock(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Update(ctx, "web", func(*State, bool) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "held by pid") {
		t.Fatalf("update while locked: %v, want a deadline error naming the holder", err)
	}
}

// A waiter that died leaves a ticket nobody holds; it does not block the queue.
func TestDeadWaiterDoesNotBlock(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	dir := filepath.Join(s.Dir, "locks", "web.queue")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000001-1-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	unlock, err := s.Lock(ctx, "web")
	if err != nil {
		t.Fatalf("a dead waiter's ticket blocks the lock: %v", err)
	}
	unlock()
}

// up keeps what a command set unless the file sets the field itself, and says so.
func TestApplyKeepsCommandOverrides(t *testing.T) {
	file := func(written ...string) config.Set {
		s := config.Set{Name: "web", Replicas: ptr(2), Template: config.Template{Image: "img"}, Written: map[string]bool{}}
		for _, w := range written {
			s.Written[w] = true
		}
		s.ApplyDefaults()
		return s
	}
	var st State
	if _, err := st.Apply(file("replicas"), ImageIDs{Main: "sha256:a"}, "up", t0, false); err != nil {
		t.Fatal(err)
	}
	st.Spec.Replicas, st.Overrides.Replicas = ptr(5), ptr(5) // ostset scale web --replicas 5
	st.Spec.UpdateStrategy.RollingUpdate.Partition = 2       // ostset rollout partition web 2
	st.Overrides.Partition = ptr(2)
	res, err := st.Apply(file("replicas"), ImageIDs{Main: "sha256:b"}, "up", t0, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Spec.DesiredReplicas() != 2 || st.Overrides.Replicas != nil {
		t.Errorf("the file sets replicas: %d replicas, override %v; want 2 and none", st.Spec.DesiredReplicas(), st.Overrides.Replicas)
	}
	if st.Spec.Partition() != 2 || st.Overrides.Partition == nil {
		t.Errorf("the file leaves the partition out: partition %d, override %v; want 2 kept", st.Spec.Partition(), st.Overrides.Partition)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "the file's 2 replaces 5 set by 'ostset scale'") || !strings.Contains(notes, "keeping 2 set by 'ostset rollout partition'") {
		t.Errorf("notes:\n%s", notes)
	}
	if _, err := st.Apply(file("updateStrategy.rollingUpdate.partition"), ImageIDs{Main: "sha256:b"}, "up", t0, true); err != nil {
		t.Fatal(err)
	}
	if st.Spec.Partition() != 0 || st.Overrides.Partition != nil {
		t.Errorf("the file sets the partition: %d, override %v; want 0 and none", st.Spec.Partition(), st.Overrides.Partition)
	}
}

// A state directory made loose by an earlier version is tightened to 0700 with
// files 0600 (set files carry passwords); one of another user is refused.
func TestStateDirIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	for _, d := range []string{dir, filepath.Join(dir, "sets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o775); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "sets", "web.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Store{Dir: dir}
	unlock, err := s.Lock(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "sets"): 0o700, file: 0o600, filepath.Join(dir, "locks", "web.lock"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	if os.Geteuid() != 0 {
		t.Skip("changing a directory's owner needs root")
	}
	other := filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := (Store{Dir: other}).Lock(context.Background(), "web"); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("a state directory of another user: %v, want a refusal", err)
	}
}

// The temporary files of atomic writes that killed processes left behind are
// removed when a process first uses the state directory; a fresh one (a write
// under way in another process) and every other file are kept.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * staleTempAge)
	files := map[string]bool{ // path → kept
		"sets/.web.json.123456":      false,
		"sets/.db.json.99":           true, // fresh
		".id.4242":                   false,
		"events/web.log.tmp":         false,
		"sets/web.json":              true,
		"volume-use/.web.json.7":     false,
		"manifest-volumes/web/.cfg":  true,
		"manifest-volumes/.a.json.b": true, // a user's file
	}
	for p, kept := range files {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if !kept || p == "sets/web.json" || strings.HasPrefix(p, "manifest-volumes/") {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := securePrivate(dir); err != nil {
		t.Fatal(err)
	}
	for p, kept := range files {
		_, err := os.Stat(filepath.Join(dir, p))
		if gone := errors.Is(err, os.ErrNotExist); gone == kept {
			t.Errorf("%s: kept %v, want %v (%v)", p, !gone, kept, err)
		}
	}
}
