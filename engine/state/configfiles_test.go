package state_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

// A ConfigMap volume's files are written, private on the host, with the
// mode and group a replica gets recorded: a key removed from the ConfigMap
// disappears, and ConfigVolume gives exactly the current files.
func TestWriteConfigFiles(t *testing.T) {
	s := state.Store{Dir: t.TempDir()}
	dir := filepath.Join(s.ConfigDir(), "web", "conf")
	write := func(files ...config.ConfigFile) {
		t.Helper()
		if err := s.WriteConfigFiles(files); err != nil {
			t.Fatal(err)
		}
	}
	write(config.ConfigFile{Dir: dir, Name: "a.conf", Data: []byte("a=1"), Mode: 0o644},
		config.ConfigFile{Dir: dir, Name: "sub/b.conf", Data: []byte("b=1"), Mode: 0o600})
	write(config.ConfigFile{Dir: dir, Name: "a.conf", Data: []byte("a=2"), Mode: 0o640, GID: 2000})
	if data, err := os.ReadFile(filepath.Join(dir, "a.conf")); err != nil || string(data) != "a=2" {
		t.Errorf("a.conf = %q, %v; want a=2", data, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.conf")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a.conf mode on the host %v, %v; want 0600 (the state directory is private)", fi.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "b.conf")); !os.IsNotExist(err) {
		t.Errorf("a key no longer in the ConfigMap is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("the directory of a removed key is still there: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	files, ok, err := s.ConfigVolume(dir)
	want := []state.ConfigVolumeFile{{Name: "a.conf", Mode: 0o640, GID: 2000, Data: []byte("a=2")}}
	if err != nil || !ok || len(files) != 1 || files[0].Name != want[0].Name || files[0].Mode != want[0].Mode || files[0].GID != want[0].GID || string(files[0].Data) != "a=2" {
		t.Errorf("ConfigVolume = %+v, %v, %v; want %+v", files, ok, err, want)
	}
	if _, ok, err := s.ConfigVolume("/srv/data"); ok || err != nil {
		t.Errorf("a user's bind source is taken for a volume of the state directory: %v, %v", ok, err)
	}
}

// Nothing outside the state directory is written or removed, whatever the
// names say: a directory or file name that leaves ConfigDir is refused with
// nothing written, a symbolic link planted in it is not followed, and a file
// ostset did not record writing is never removed.
func TestWriteConfigFilesStaysInside(t *testing.T) {
	s := state.Store{Dir: filepath.Join(t.TempDir(), "state")}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(victim, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"keep.txt", "deep/keep.txt"} {
		if err := os.WriteFile(filepath.Join(victim, f), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	untouched := func(t *testing.T) {
		t.Helper()
		var names []string
		_ = filepath.WalkDir(victim, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(victim, p)
				names = append(names, rel)
			}
			return err
		})
		if !slices.Equal(names, []string{"deep/keep.txt", "keep.txt"}) {
			t.Errorf("files under the victim directory: %v; want deep/keep.txt and keep.txt only", names)
		}
	}
	outside, _ := filepath.Rel(filepath.Join(s.ConfigDir(), "web"), victim)
	inside := filepath.Join(s.ConfigDir(), "web", "conf")
	for _, files := range [][]config.ConfigFile{
		{{Dir: filepath.Join(s.ConfigDir(), "web", outside), Name: "password", Data: []byte("x")}},
		{{Dir: inside, Name: "ok", Data: []byte("x")}, {Dir: inside, Name: "../../../../" + filepath.Base(victim) + "/password", Data: []byte("x")}},
		{{Dir: inside, Name: "/etc/password", Data: []byte("x")}},
	} {
		if err := s.WriteConfigFiles(files); err == nil {
			t.Errorf("%+v: written", files)
		}
		if _, err := os.Stat(filepath.Join(inside, "ok")); !os.IsNotExist(err) {
			t.Errorf("a refused write wrote its other files: %v", err)
		}
		untouched(t)
	}

	// A symbolic link in the state directory (planted, or a volume the
	// user pointed there) is not followed out of it.
	if err := os.MkdirAll(filepath.Join(s.ConfigDir(), "web"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(s.ConfigDir(), "web", "link")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(s.ConfigDir(), "web", "link")
	if err := s.WriteConfigFiles([]config.ConfigFile{{Dir: link, Name: "password", Data: []byte("x")}}); err == nil {
		t.Errorf("written through a symbolic link out of the state directory")
	}
	untouched(t)

	// A file in a volume directory that no write recorded stays.
	stray := filepath.Join(inside, "stray")
	write := func(name string) {
		t.Helper()
		if err := s.WriteConfigFiles([]config.ConfigFile{{Dir: inside, Name: name, Data: []byte("x"), Mode: 0o644}}); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	if err := os.WriteFile(stray, []byte("not ostset's"), 0o600); err != nil {
		t.Fatal(err)
	}
	write("b")
	if _, err := os.Stat(stray); err != nil {
		t.Errorf("a file ostset did not write was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(inside, "a")); !os.IsNotExist(err) {
		t.Errorf("a recorded file no longer in the volume is still there: %v", err)
	}
}

// A set name from the command line that is a path ("../../x") takes no lock:
// nothing is made outside the state directory.
func TestSetNameThatIsAPath(t *testing.T) {
	base := t.TempDir()
	s := state.Store{Dir: filepath.Join(base, "a", "state")}
	name := "../../../" + "outside"
	if unlock, err := s.Lock(t.Context(), name); err == nil {
		unlock()
		t.Errorf("the lock of %q was taken", name)
	}
	if left, _ := filepath.Glob(filepath.Join(base, "outside*")); len(left) > 0 {
		t.Errorf("made outside the state directory: %v", left)
	}
}
