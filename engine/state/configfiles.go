package state

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ostset/ostset/config"
)

// ConfigDir is where the files of the ConfigMap and Secret volumes of imported
// StatefulSets are written (config.Loader.ConfigDir), one directory per set
// and volume.
func (s Store) ConfigDir() string { return filepath.Join(s.Dir, "manifest-volumes") }

// WriteConfigFiles writes the files of the ConfigMap and Secret volumes of
// imported StatefulSets, each directory holding exactly its files afterwards.
// A file is replaced by a synced temporary file renamed over it, so a replica
// that has the directory bind-mounted sees the old or the new content, never
// a part, as a pod sees a ConfigMap update.
func WriteConfigFiles(files []config.ConfigFile) error {
	byDir := map[string][]config.ConfigFile{}
	for _, f := range files {
		byDir[f.Dir] = append(byDir[f.Dir], f)
	}
	for dir, fs := range byDir {
		var names []string
		for _, f := range fs {
			if err := writeSharedFile(filepath.Join(dir, f.Name), f.Data, os.FileMode(f.Mode)); err != nil {
				return fmt.Errorf("volume files: %w", err)
			}
			names = append(names, filepath.Clean(f.Name))
		}
		if err := removeOthers(dir, names); err != nil {
			return fmt.Errorf("volume files: %w", err)
		}
	}
	return nil
}

// writeSharedFile is writeFileAtomic for a file a container reads: its
// directories are 0755 and the file gets mode.
func writeSharedFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncSharedDir(filepath.Dir(path)) // the rename itself survives a power loss
}

// syncSharedDir is syncDir; a variable for the tests.
var syncSharedDir = syncDir

// removeOthers removes the regular files under dir that keep does not name:
// a key removed from the ConfigMap disappears from the volume.
func removeOthers(dir string, keep []string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || slices.Contains(keep, rel) {
			return err
		}
		return os.Remove(path)
	})
}
