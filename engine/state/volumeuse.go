package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/volumes"
)

// A deleted set's kept volumes outlive its state: so that the set brought back
// can say which revision last used each one and until when, ostset down keeps
// their VolumeUse in volume-use/<set>.json, and the up that creates the set
// again takes it back into the state. Docker cannot relabel a volume, so the
// memory cannot live on the volume itself.

func (s Store) volumeUseFile(name string) string {
	return filepath.Join(s.Dir, "volume-use", name+".json")
}

// KeepVolumeUse stores use, the last use of a deleted set's kept volumes; an
// empty use removes what was kept. The caller holds the set's lock.
func (s Store) KeepVolumeUse(name string, use map[string]VolumeUse) error {
	if len(use) == 0 {
		return s.ForgetVolumeUse(name)
	}
	data, err := json.MarshalIndent(use, "", "  ")
	if err == nil {
		err = writeFileAtomic(s.volumeUseFile(name), data)
	}
	if err != nil {
		return s.writeFailed("keep the volume use of "+name, err)
	}
	return nil
}

// KeptVolumeUse returns what KeepVolumeUse stored for the set, nil if nothing.
func (s Store) KeptVolumeUse(name string) (map[string]VolumeUse, error) {
	if err := s.readable(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(s.volumeUseFile(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var use map[string]VolumeUse
	if err == nil {
		err = json.Unmarshal(data, &use)
	}
	if err != nil {
		return nil, fmt.Errorf("read the kept volume use of %s: %w", name, err)
	}
	return use, nil
}

// ForgetVolumeUse removes what KeepVolumeUse stored for the set.
func (s Store) ForgetVolumeUse(name string) error {
	if err := removeFileDurable(s.volumeUseFile(name)); err != nil {
		return fmt.Errorf("forget the volume use of %s: %w", name, err)
	}
	return nil
}

// UseVolumes records that a container just created at revision uses the
// volumes (its ordinal's): whatever removes it later without releasing them
// (an update, a recreation, a removal by hand or cut short) leaves this
// record, so a replica that takes them over does not report them as from an
// earlier life. Only a release (a scale-down, ostset down) replaces it by one
// that does.
func (st *State) UseVolumes(vs []plan.VolumeSpec, revision string, now time.Time) {
	for _, v := range vs {
		if st.VolumeUse == nil {
			st.VolumeUse = map[string]VolumeUse{}
		}
		st.VolumeUse[v.Name] = VolumeUse{Revision: revision, Until: now}
	}
}

// ReleaseVolumes records that the replicas, about to be removed with their
// set, release their per-ordinal volumes at now. It reports whether it
// changed anything.
func (st *State) ReleaseVolumes(replicas []plan.Replica, now time.Time) bool {
	changed := false
	for _, r := range replicas {
		for _, claim := range st.Spec.VolumeClaimTemplates {
			if st.VolumeUse == nil {
				st.VolumeUse = map[string]VolumeUse{}
			}
			st.VolumeUse[volumes.Name(claim.Name, st.Spec.Name, r.Ordinal)] = VolumeUse{Revision: r.Revision, Until: now, Released: true}
			changed = true
		}
	}
	return changed
}

// KeptUse is the use of the volumes a delete keeps, out of all st knows.
func (st *State) KeptUse(kept []plan.Volume) map[string]VolumeUse {
	out := map[string]VolumeUse{}
	for _, v := range kept {
		if u, ok := st.VolumeUse[v.Name]; ok {
			out[v.Name] = u
		}
	}
	return out
}

// writeFileAtomic writes data to path (mode 0600) through a synced temporary
// file renamed over it, then syncs the directory, creating it (0700) if need
// be: a crash leaves the old file or the new one.
func writeFileAtomic(path string, data []byte) error {
	return writeFileAtomicTold(path, data, nil)
}

// writeFileAtomicTold is writeFileAtomic that tells renaming, if set, which file
// is about to replace path, before it does.
func writeFileAtomicTold(path string, data []byte, renaming func(os.FileInfo)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && renaming != nil {
		var fi os.FileInfo
		if fi, err = os.Stat(tmp.Name()); err == nil {
			renaming(fi)
		}
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path)) // the rename itself survives a power loss
	}
	return err
}

// removeFileDurable removes path, if it exists, and syncs its directory so that
// the removal survives a crash as a rename does.
func removeFileDurable(path string) error {
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}
