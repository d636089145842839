package state

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ostset/ostset/engine/plan"
)

func TestStoreID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := Store{Dir: dir}
	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	if !validID(id) || len(id) != 16 {
		t.Errorf("id %q", id)
	}
	for path, mode := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, filepath.Join(dir, "id"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want mode %v", path, fi.Mode(), err, mode)
		}
	}
	o, err := Store{Dir: dir + "/."}.Owner()
	if err != nil || o != (plan.Owner{ID: id, Dir: dir}) {
		t.Errorf("owner %+v, %v; want %s at %s", o, err, id, dir)
	}
	again, err := loadOrMakeID(dir) // past the cache: read from the file
	if err != nil || again != id {
		t.Errorf("read back %q, %v; want %q", again, err, id)
	}
	if other, _ := (Store{Dir: t.TempDir()}).ID(); other == id {
		t.Error("two state directories share an ID")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".id.*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// Processes that make the ID at the same time all end up with the same one.
func TestStoreIDRace(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, err := loadOrMakeID(dir)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids %v", ids)
		}
	}
}

func TestStoreIDCorrupt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte("not an id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Store{Dir: dir}).ID(); err == nil || !strings.Contains(err.Error(), `"not an id" is not an ID`) {
		t.Errorf("corrupt id: %v", err)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef": true, "host-1.a_B": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "a b": false, "ü": false, "a/b": false,
	} {
		if got := validID(id); got != want {
			t.Errorf("validID(%q) = %v, want %v", id, got, want)
		}
	}
}
