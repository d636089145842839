package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostset/ostset/engine/state"
)

// A state directory of a newer format is refused by the commands that only
// read it as by those that change it, with the same error: an older ostset
// must not show what it could misread.
func TestReadOnlyCommandsRefuseANewerStateDirFormat(t *testing.T) {
	cases := [][]string{
		{"get"},
		{"get", "efup1"},
		{"get", "-o", "json"},
		{"status", "efup1"},
		{"describe", "efup1"},
		{"events", "efup1"},
		{"logs", "efup1"},
		{"logs", "efup1-0", "--previous"},
		{"export", "efup1"},
		{"rollout", "history", "efup1"},
		{"volumes", "efup1"},
		{"view"},
		{"view", "efup1"},
		{"scale", "efup1", "--replicas", "2"}, // a command that writes: the error the others must give
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			f := newFakeCLI(t)
			f.dir = filepath.Join(t.TempDir(), "state")
			copyTree(t, "../../engine/state/testdata/format0", f.dir)
			if err := os.WriteFile(filepath.Join(f.dir, "format"), []byte(`{"format": 99}`), 0o600); err != nil {
				t.Fatal(err)
			}
			out, _, err := f.run(context.Background(), args...)
			var fe *state.FormatError
			if !errors.As(err, &fe) || fe.Format != 99 || fe.Dir != f.dir {
				t.Fatalf("ostset %s in a directory of format 99: %v, stdout:\n%s", strings.Join(args, " "), err, out)
			}
			if out != "" {
				t.Errorf("printed what it read:\n%s", out)
			}
		})
	}
}

// copyTree copies the files of src into dst (0700 directories, 0600 files).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
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
