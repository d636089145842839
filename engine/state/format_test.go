package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ostset/ostset/config"
)

// copyDir copies the files of src into dst (0700 directories, 0600 files).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// forgetSecured makes the next use of dir in this process secure it again, as
// a new process would.
func forgetSecured(dir string) { secured.Delete(dir) }

// A state directory written by the version before the format record
// (testdata/format0: the files ostset wrote at commit 3ab1121) is read as it
// is; the first process to use it copies its files to a backup and records the
// format, once, also when several processes start at the same time.
func TestStateDirFormatMigratedOnceWithBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	copyDir(t, "testdata/format0", dir)
	original, err := os.ReadFile(filepath.Join(dir, "sets", "efup1.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := Store{Dir: dir}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = migrateFormat(dir) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	forgetSecured(dir)
	st, err := s.Load("efup1")
	if err != nil || st.UpdateRevision != "efup1-be59f0e86f" || len(st.Revisions) != 1 {
		t.Fatalf("the earlier version's state: %+v, %v", st, err)
	}
	if err := s.Save(st); err != nil { // a process's first write: secures and checks the format again
		t.Fatal(err)
	}

	data, err := os.ReadFile(filepath.Join(dir, formatFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec formatRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Format != StateFormat || rec.From != 0 || rec.Backup == "" {
		t.Fatalf("format record %+v", rec)
	}
	backups, _ := filepath.Glob(filepath.Join(dir, "backups", "*"))
	if len(backups) != 1 || backups[0] != filepath.Join(dir, rec.Backup) {
		t.Fatalf("backups %v, want one, %s", backups, rec.Backup)
	}
	for _, f := range []string{"sets/efup1.json", "events/efup1.jsonl", "id"} {
		want, _ := os.ReadFile(filepath.Join("testdata/format0", f))
		got, err := os.ReadFile(filepath.Join(dir, rec.Backup, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("backup of %s differs from the original (%v)", f, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, rec.Backup, "sets", "efup1.json")); !bytes.Equal(got, original) {
		t.Errorf("the backup is not the earlier version's file")
	}
}

// A new state directory gets the format record and no backup.
func TestNewStateDirHasTheFormatAndNoBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := (Store{Dir: dir}).secure(); err != nil {
		t.Fatal(err)
	}
	if f, err := readFormat(dir); err != nil || f != StateFormat {
		t.Errorf("format %d, %v", f, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "backups")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup of a new directory: %v", err)
	}
}

// A directory of a newer format is refused, with the directory named, by
// every read as by every write: an older ostset must not act on files it
// could misread, nor show them.
func TestNewerStateDirFormatRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	copyDir(t, "testdata/format0", dir)
	if err := os.WriteFile(filepath.Join(dir, formatFile), []byte(`{"format": 99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Store{Dir: dir}
	ops := map[string]func() error{
		"Load":          func() error { _, err := s.Load("efup1"); return err },
		"List":          func() error { _, err := s.List(); return err },
		"Events":        func() error { _, _, err := s.Events("efup1", 0); return err },
		"EventSeq":      func() error { _, err := s.EventSeq("efup1"); return err },
		"KeptVolumeUse": func() error { _, err := s.KeptVolumeUse("efup1"); return err },
		"LoadPrevious":  func() error { _, _, err := s.LoadPrevious("efup1-0"); return err },
		"Save":          func() error { return s.Save(State{Spec: config.Set{Name: "efup1"}}) },
	}
	for name, op := range ops {
		err := op()
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Dir != dir || fe.Format != 99 {
			t.Errorf("%s in a directory of format 99: %v", name, err)
		}
	}
}

// A read of a directory that does not exist neither fails nor makes it.
func TestReadOfMissingStateDirMakesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if names, err := (Store{Dir: dir}).List(); err != nil || names != nil {
		t.Fatalf("List: %v, %v", names, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read made the directory: %v", err)
	}
}

// A read of a directory of an older format migrates it first, as a write
// does: what is read is in the format this version reads.
func TestReadOfOlderStateDirMigrates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	copyDir(t, "testdata/format0", dir)
	if _, err := (Store{Dir: dir}).List(); err != nil {
		t.Fatal(err)
	}
	if f, err := readFormat(dir); err != nil || f != StateFormat {
		t.Errorf("format after a read: %d, %v", f, err)
	}
}
