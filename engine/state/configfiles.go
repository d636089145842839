package state

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
)

// The files of the ConfigMap and Secret volumes of imported StatefulSets are
// kept under the state directory, one directory per set and volume, private
// to its user like the rest of it (0700, files 0600): the mode, group and
// list of the files a replica gets are recorded beside the directory, in
// <volume>.files.json, and the engine copies them into each replica it
// creates (see ConfigVolume). Every write and removal goes through an
// os.Root of ConfigDir, so no name, however it was spelt and whatever
// symbolic link lies in the directory, reaches a file outside it; and only
// a file recorded as written is ever removed.

// ConfigDir is where the files of the ConfigMap and Secret volumes of imported
// StatefulSets are written (config.Loader.ConfigDir), one directory per set
// and volume.
func (s Store) ConfigDir() string { return filepath.Join(s.Dir, "manifest-volumes") }

// ConfigVolumeFile is a file of a ConfigMap or Secret volume, as a replica
// gets it.
type ConfigVolumeFile struct {
	Name string `json:"name"` // a slash-separated path inside the volume
	Mode uint32 `json:"mode"`
	GID  int    `json:"gid,omitempty"`
	UID  int    `json:"uid,omitempty"`
	Data []byte `json:"-"`
}

type configIndex struct {
	Files []ConfigVolumeFile `json:"files"`
}

// indexName is the record of a volume directory's files: beside it, so no
// key of a ConfigMap (a file inside it) can take its name.
func indexName(rel string) string { return rel + ".files.json" }

// WriteConfigFiles writes the files of the ConfigMap and Secret volumes of
// imported StatefulSets and records them; a file the volume no longer has
// that an earlier write recorded is removed (a key removed from the
// ConfigMap disappears from the volume), any other file is left alone. A
// file is replaced by a synced temporary file renamed over it. Every file's
// place is checked before anything is written: one outside ConfigDir is an
// error, and nothing is written.
func (s Store) WriteConfigFiles(files []config.ConfigFile) error {
	if len(files) == 0 {
		return nil
	}
	base := s.ConfigDir()
	byDir := map[string][]config.ConfigFile{}
	for _, f := range files {
		rel, err := filepath.Rel(base, f.Dir)
		if err != nil || !filepath.IsLocal(rel) || strings.HasPrefix(filepath.Base(rel), ".") {
			return fmt.Errorf("volume files: %s is not a directory of %s: refused", f.Dir, base)
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Name)) || path.Clean(f.Name) != f.Name {
			return fmt.Errorf("volume files: %q is not a path inside %s: refused", f.Name, f.Dir)
		}
		byDir[rel] = append(byDir[rel], f)
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("volume files: %w", err)
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return fmt.Errorf("volume files: %w", err)
	}
	defer func() { _ = root.Close() }()
	for _, rel := range slices.Sorted(maps.Keys(byDir)) {
		if err := writeVolume(root, rel, byDir[rel]); err != nil {
			return fmt.Errorf("volume files: %s: %w", filepath.Join(base, rel), err)
		}
	}
	return nil
}

// writeVolume writes one volume directory's files and its record, then
// removes the files the previous record had and this one has not.
func writeVolume(root *os.Root, rel string, files []config.ConfigFile) error {
	before, _ := readIndex(root, rel) // none yet (or unreadable): nothing is removed
	var index configIndex
	for _, f := range files {
		name := filepath.Join(rel, filepath.FromSlash(f.Name))
		if err := writeInRoot(root, name, f.Data); err != nil {
			return err
		}
		index.Files = append(index.Files, ConfigVolumeFile{Name: f.Name, Mode: f.Mode, GID: f.GID, UID: f.UID})
	}
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	if err := writeInRoot(root, indexName(rel), data); err != nil {
		return err
	}
	for _, old := range before.Files {
		if slices.ContainsFunc(index.Files, func(f ConfigVolumeFile) bool { return f.Name == old.Name }) {
			continue
		}
		name := filepath.Join(rel, filepath.FromSlash(old.Name))
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// Its directories, if that left them empty (a non-empty one stays).
		for dir := filepath.Dir(name); dir != rel && dir != "."; dir = filepath.Dir(dir) {
			if root.Remove(dir) != nil {
				break
			}
		}
	}
	return nil
}

// writeInRoot writes name (relative to root) as a synced temporary file
// renamed over it, private to this user.
func writeInRoot(root *os.Root, name string, data []byte) error {
	if err := root.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"."+rand.Text()[:8])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return syncSharedDir(root, filepath.Dir(name)) // the rename itself survives a power loss
}

// syncSharedDir syncs a directory of root; a variable for the tests.
var syncSharedDir = func(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func readIndex(root *os.Root, rel string) (configIndex, error) {
	var index configIndex
	data, err := root.ReadFile(indexName(rel))
	if err != nil {
		return index, err
	}
	return index, json.Unmarshal(data, &index)
}

// ConfigVolume returns the files a replica gets for a ConfigMap or Secret
// volume kept in dir, as the last write recorded them. ok is false when dir
// is not a volume directory of ConfigDir (a bind mount of the user's). A
// directory written before files were recorded gives its regular files,
// 0644.
func (s Store) ConfigVolume(dir string) (files []ConfigVolumeFile, ok bool, err error) {
	base := s.ConfigDir()
	rel, err := filepath.Rel(base, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, false, nil
	}
	root, err := os.OpenRoot(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, fmt.Errorf("the files of volume %s are gone (run up again with the manifest)", dir)
	}
	if err != nil {
		return nil, true, err
	}
	defer func() { _ = root.Close() }()
	index, err := readIndex(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		index, err = unrecordedVolume(root, rel)
	}
	if err != nil {
		return nil, true, fmt.Errorf("the files of volume %s: %w", dir, err)
	}
	for i, f := range index.Files {
		data, err := root.ReadFile(filepath.Join(rel, filepath.FromSlash(f.Name)))
		if err != nil {
			return nil, true, fmt.Errorf("the files of volume %s: %w", dir, err)
		}
		index.Files[i].Data = data
	}
	return index.Files, true, nil
}

// unrecordedVolume lists a volume directory written before its files were
// recorded.
func unrecordedVolume(root *os.Root, rel string) (configIndex, error) {
	var index configIndex
	err := fs.WalkDir(root.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".tmp-") {
			return err
		}
		name := strings.TrimPrefix(p, filepath.ToSlash(rel)+"/")
		index.Files = append(index.Files, ConfigVolumeFile{Name: name, Mode: 0o644})
		return nil
	})
	return index, err
}

// checkFileName refuses a name (of a set, a network) that would not be one
// file of its directory of the state directory ("../x", "a/b"): the files
// are named NAME.json, NAME.lock.
func checkFileName(name string) error {
	if strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("%q: not a name (a set's name is a DNS label)", name)
	}
	return nil
}
