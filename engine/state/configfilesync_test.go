package state

import (
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
	syncSharedDir = func(dir string) error {
		synced = append(synced, dir)
		return orig(dir)
	}
	defer func() { syncSharedDir = orig }()
	dir := filepath.Join(t.TempDir(), "web", "conf")
	if err := WriteConfigFiles([]config.ConfigFile{{Dir: dir, Name: "a.conf", Data: []byte("a"), Mode: 0o644}, {Dir: dir, Name: "sub/b.conf", Data: []byte("b"), Mode: 0o644}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(synced, dir) || !slices.Contains(synced, filepath.Join(dir, "sub")) {
		t.Errorf("synced %q, want %s and its sub", synced, dir)
	}
}
