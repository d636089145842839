package state_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

// A ConfigMap volume's directory holds exactly its files, with their modes:
// a key removed from the ConfigMap disappears.
func TestWriteConfigFiles(t *testing.T) {
	dir := filepath.Join(state.Store{Dir: t.TempDir()}.ConfigDir(), "web", "conf")
	write := func(files ...config.ConfigFile) {
		t.Helper()
		if err := state.WriteConfigFiles(files); err != nil {
			t.Fatal(err)
		}
	}
	write(config.ConfigFile{Dir: dir, Name: "a.conf", Data: []byte("a=1"), Mode: 0o644},
		config.ConfigFile{Dir: dir, Name: "sub/b.conf", Data: []byte("b=1"), Mode: 0o600})
	write(config.ConfigFile{Dir: dir, Name: "a.conf", Data: []byte("a=2"), Mode: 0o640})
	if data, err := os.ReadFile(filepath.Join(dir, "a.conf")); err != nil || string(data) != "a=2" {
		t.Errorf("a.conf = %q, %v; want a=2", data, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.conf")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.conf mode %v, %v; want 0640", fi.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "b.conf")); !os.IsNotExist(err) {
		t.Errorf("a key no longer in the ConfigMap is still there: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
