package state

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
)

// A manifest's file is renamed into place and its directory synced, so the
// rename survives a power loss as the state files' renames do.
func TestWriteConfigFilesSyncsTheDirectory(t *testing.T) {
	var synced []string
	orig := syncSharedDir
	syncSharedDir = func(root *os.Root, dir string) error {
		synced = append(synced, dir)
		return orig(root, dir)
	}
	defer func() { syncSharedDir = orig }()
	s := Store{Dir: t.TempDir()}
	dir := filepath.Join(s.ConfigDir(), "web", "conf")
	if err := s.WriteConfigFiles([]config.ConfigFile{{Dir: dir, Name: "a.conf", Data: []byte("a"), Mode: 0o644}, {Dir: dir, Name: "sub/b.conf", Data: []byte("b"), Mode: 0o644}}); err != nil {
		t.Fatal(err)
	}
	if rel := filepath.Join("web", "conf"); !slices.Contains(synced, rel) || !slices.Contains(synced, filepath.Join(rel, "sub")) {
		t.Errorf("synced %q, want %s and its sub", synced, dir)
	}
}
