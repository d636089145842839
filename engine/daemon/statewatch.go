package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/ostset/ostset/engine/state"
)

// stateWatch tells the daemon which sets another process changed in the state
// directory (ostset up, scale, rollout, down write the set's file), through
// inotify on <dir>/sets: no polling. The daemon's own writes are told apart by
// the identity of the file they left (each save renames a new file into place),
// so a pass that saves does not wake itself.
type stateWatch struct {
	dir string
	mu  sync.Mutex
	own map[string]os.FileInfo // by set: the file this process last wrote
}

func newStateWatch(store state.Store) (*stateWatch, error) {
	dir, err := store.SetsDir()
	if err != nil {
		return nil, err
	}
	return &stateWatch{dir: dir, own: map[string]os.FileInfo{}}, nil
}

// saved records a write of this process (Store.Saved).
func (w *stateWatch) saved(name string, fi os.FileInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.own[name] = fi
}

// changed says whether the set's file is not the one this process last wrote.
func (w *stateWatch) changed(name string) bool {
	fi, err := os.Stat(filepath.Join(w.dir, name+".json"))
	w.mu.Lock()
	defer w.mu.Unlock()
	own, ok := w.own[name]
	if err != nil {
		delete(w.own, name)
		return true // deleted (or unreadable): a pass finds out which
	}
	return !ok || !os.SameFile(fi, own)
}

// run calls changed for each set whose file another process changed, until
// ctx ends. It returns once the watch is set up or failed to be; errors while
// running are reported to onErr.
func (w *stateWatch) run(ctx context.Context, changed func(name string), onErr func(error)) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch state directory: %w", err)
	}
	if err := fw.Add(w.dir); err != nil {
		_ = fw.Close()
		return fmt.Errorf("watch state directory %s: %w", w.dir, err)
	}
	go func() {
		defer func() { _ = fw.Close() }()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				name, ok := setFileName(ev.Name)
				if ok && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) != 0 && w.changed(name) {
					changed(name)
				}
			case err, ok := <-fw.Errors:
				if !ok {
					return
				}
				if !errors.Is(err, fsnotify.ErrEventOverflow) {
					onErr(err)
					continue
				}
				onErr(fmt.Errorf("state directory watch overflowed: %w", err))
				changed("") // "" means: every set
			}
		}
	}()
	return nil
}

// setFileName is the set a state file path is for; temp files (".name.json.*")
// are not set files.
func setFileName(path string) (string, bool) {
	base := filepath.Base(path)
	name, ok := strings.CutSuffix(base, ".json")
	if !ok || strings.HasPrefix(base, ".") {
		return "", false
	}
	return name, true
}
