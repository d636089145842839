package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
)

// The set lock excludes a second holder and gives up when its context ends.
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
				if _, err := s.Update("web", func(st *State, _ bool) error {
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
	}
	// current stays at a (the rollout never completed): a is kept, as is e (update).
	if got, want := historyNames(st), []string{"1:a", "3:c", "4:d", "5:e"}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if changed := st.SetUpdateRevision(revSpec("c"), "up c again", t0); !changed {
		t.Error("going back to c did not change the update revision")
	}
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
