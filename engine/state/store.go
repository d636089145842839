package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/config"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/volumes"
)

// ErrUnknownSet is returned for a set the state directory does not hold.
var ErrUnknownSet = errors.New("unknown set")

// Revision is one entry of a set's history.
type Revision struct {
	Number      int                 `json:"number"`
	Name        string              `json:"name"`
	Spec        config.RevisionSpec `json:"spec"`
	ChangeCause string              `json:"changeCause,omitempty"`
	// PID is the process that made the revision the update revision last
	// (with ChangeCause, who did it; a wait it superseded names both).
	PID     int       `json:"pid,omitempty"`
	Created time.Time `json:"created"`
}

// State is what the state directory holds for one set: the desired spec and the
// revision history.
type State struct {
	Spec               config.Set `json:"spec"`
	Generation         int64      `json:"generation"`
	ObservedGeneration int64      `json:"observedGeneration"`
	Created            time.Time  `json:"created"`
	Revisions          []Revision `json:"revisions"`
	CurrentRevision    string     `json:"currentRevision"`
	UpdateRevision     string     `json:"updateRevision"`
	Paused             bool       `json:"paused,omitempty"`
	// Stopped: ostset stop stopped the set; ostset start (or up) starts it.
	Stopped bool `json:"stopped,omitempty"`
	// StoppedIDs are the set's containers (by ID) that ostset stop keeps
	// stopped, recorded by the passes that see them: started again, not
	// recreated, once the set is started (see noteStopped).
	StoppedIDs []string `json:"stoppedIds,omitempty"`
	// VolumeUse remembers, per volume, the last replica that used it, so that a
	// replica reusing a volume from an earlier life of its ordinal can say so.
	VolumeUse map[string]VolumeUse `json:"volumeUse,omitempty"`
	// Progress is the last time the rollout to the update revision moved on.
	Progress ProgressMark `json:"progress"`
	// RollingBackFrom names the revision an automatic rollback left, until the
	// rollback completes.
	RollingBackFrom string `json:"rollingBackFrom,omitempty"`
	// LastRollback is the last automatic rollback, kept after it completes so
	// that any process waiting on the abandoned rollout can report it.
	LastRollback *RollbackRecord `json:"lastRollback,omitempty"`
	// Deleting: ostset down started; any pass finishes it.
	Deleting *plan.DeleteIntent `json:"deleting,omitempty"`
	// ReadySince remembers, per container ID, the earliest time the replica was
	// seen ready while it stayed ready: Docker keeps only the last five probes, so
	// the time they imply slides forward, and minReadySeconds longer than a few
	// probe intervals would never pass. Kept here, not in a process, so that every
	// command and a restarted controller agree on availability.
	ReadySince map[string]time.Time `json:"readySince,omitempty"`
	// Probed records, per container ID, since when ostset's own probe of the
	// replica's healthcheck has made it ready while the engine still says
	// "starting" (see probed.go), so that every command sees what the process
	// that drives the set probed.
	Probed map[string]time.Time `json:"probed,omitempty"`
	// Liveness records, per container ID, ostset's startup and liveness
	// probes of the replica: started, restarts, back-off (see liveness.go).
	Liveness map[string]Liveness `json:"liveness,omitempty"`
	// Overrides are the fields a command set (scale, rollout partition); up
	// keeps them unless the file sets the field itself, as kubectl apply keeps
	// what a file leaves out.
	Overrides Overrides `json:"overrides,omitzero"`
	// CrashLoops holds the crash-loop back-off of ordinals whose replica keeps
	// exiting (see crashloop.go).
	CrashLoops map[int]CrashLoop `json:"crashLoops,omitempty"`
	// Removing holds the replica containers (by ID) that a pass decided to
	// remove, recorded before the removal began and dropped once it is done.
	// A process killed in between leaves a container that may be stopping
	// (Docker carries on with a stop it was sent) yet looks running; the next
	// pass finishes the removal (see finishRemovals), as Kubernetes finishes
	// the delete of a pod with a deletion timestamp.
	Removing map[string]time.Time `json:"removing,omitempty"`
	// CondemnedVolumes are the ordinals (sorted) whose volumes go with their
	// replica (Plan.CondemnedVolumes): a pass that reached the scale-down
	// found the replica outside the range while whenScaled was Delete,
	// recorded before any removal. The volumes are removed once no container
	// of the ordinal is left, whoever removed it, and the record with them. A
	// scale back up while the replica still exists cancels it (the ordinal
	// keeps its volumes), as does a pass that finds it outside the range under
	// whenScaled: Retain. No other volume is ever removed by a scale-down: not
	// those ostset down kept, nor those an earlier scale-down left under
	// Retain (Kubernetes deletes only the claims of the pods it condemned).
	CondemnedVolumes []int `json:"condemnedVolumes,omitempty"`
	// Failures holds, by replica name, the last permanent error (see
	// PermanentError) of creating or starting the replica, until a create of
	// it succeeds: why a replica that does not exist cannot start.
	Failures map[string]Failure `json:"failures,omitempty"`
	// AdoptedOwners are other state directories whose containers and volumes of
	// the set were adopted on purpose (ostset up --adopt) and count as its own.
	AdoptedOwners []plan.Owner `json:"adoptedOwners,omitempty"`
	// LeftNetworks are networks the set's replicas ran on before its network
	// was changed: each is removed, if ostset created it and no container
	// uses it, once no replica of the set is at a revision on it (see
	// releaseNetworks), or when the set is deleted.
	LeftNetworks []string `json:"leftNetworks,omitempty"`
}

// Overrides are values of the spec set by commands rather than by the file.
type Overrides struct {
	Replicas  *int `json:"replicas,omitempty"`
	Partition *int `json:"partition,omitempty"`
}

// RollbackRecord is one automatic rollback.
type RollbackRecord struct {
	From string    `json:"from"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
}

// VolumeUse is the last use of a per-ordinal volume (volumes.Use).
type VolumeUse = volumes.Use

// Revision returns the named revision.
func (st *State) Revision(name string) (Revision, bool) {
	for _, r := range st.Revisions {
		if r.Name == name {
			return r, true
		}
	}
	return Revision{}, false
}

// SetUpdateRevision makes spec the update revision. A spec equal to an earlier
// revision reuses it under a new number, as Kubernetes does. It reports whether
// the update revision changed. A new update revision ends any automatic rollback
// in progress: the rollout is now to what was asked for. The current revision is
// left alone: it is only ever a revision every replica reached (see record), so
// a first revision that never became available is not protected as current.
func (st *State) SetUpdateRevision(spec config.RevisionSpec, cause string, now time.Time) bool {
	name := config.RevisionName(st.Spec.Name, spec.Hash())
	next := 1
	for _, r := range st.Revisions {
		next = max(next, r.Number+1)
	}
	i := slices.IndexFunc(st.Revisions, func(r Revision) bool { return r.Name == name })
	switch {
	case i < 0:
		st.Revisions = append(st.Revisions, Revision{Number: next, Name: name, Spec: spec, ChangeCause: cause, PID: os.Getpid(), Created: now})
	case st.Revisions[i].Number != next-1:
		r := st.Revisions[i]
		r.Number, r.ChangeCause, r.PID = next, cause, os.Getpid()
		st.Revisions = append(slices.Delete(st.Revisions, i, i+1), r)
	}
	changed := st.UpdateRevision != name
	nets := spec.NetworkNames()
	if old, ok := st.Revision(st.UpdateRevision); ok {
		for _, n := range old.Spec.NetworkNames() {
			if !slices.Contains(nets, n) && !slices.Contains(st.LeftNetworks, n) {
				st.LeftNetworks = append(st.LeftNetworks, n)
			}
		}
	}
	st.LeftNetworks = slices.DeleteFunc(st.LeftNetworks, func(n string) bool { return slices.Contains(nets, n) })
	st.UpdateRevision = name
	if changed {
		st.RollingBackFrom = ""
	}
	return changed
}

// TrimHistory keeps the newest revisionHistoryLimit revisions besides the
// live ones, which are never dropped: the current and update revisions and
// those of the replicas (and init containers) obs holds. Each pass trims it
// as it observes (Saw), as Kubernetes' controller truncates the history at
// each sync: a revision a replica still runs (under OnDelete, or below the
// partition) stays, and counts for nothing against the limit.
func (st *State) TrimHistory(obs plan.Observed) {
	keep := st.Spec.HistoryLimit()
	running := map[string]bool{}
	for _, r := range obs.Replicas {
		running[r.Revision] = true
	}
	for _, c := range obs.Inits {
		running[c.Revision] = true
	}
	var out []Revision
	for i := len(st.Revisions) - 1; i >= 0; i-- {
		r := st.Revisions[i]
		live := r.Name == st.CurrentRevision || r.Name == st.UpdateRevision || running[r.Name]
		if live || keep > 0 {
			out = append(out, r)
		}
		if !live && keep > 0 {
			keep--
		}
	}
	slices.Reverse(out)
	st.Revisions = out
}

// Store keeps one JSON file per set under Dir/sets, written atomically, and a
// lock file per set so that two processes never reconcile one set at once.
type Store struct {
	Dir string
	// Waiting, if set, is told once per lock wait who holds the lock.
	Waiting func(msg string)
	// Saved, if set, is told of each state file this process writes, before
	// it is renamed into place: the daemon watches the state directory for
	// changes made by other processes and tells its own writes apart by the
	// file's identity.
	Saved func(name string, file os.FileInfo)
}

func (s Store) file(name string) string { return filepath.Join(s.Dir, "sets", name+".json") }

// Has reports whether the store holds a set called name.
func (s Store) Has(name string) bool {
	_, err := os.Stat(s.file(name))
	return err == nil
}

// SetsDir returns the directory of the set files, made and secured (see
// secure) if it was not: a watch of it sees each set file another process
// writes.
func (s Store) SetsDir() (string, error) {
	if err := s.secure(); err != nil {
		return "", err
	}
	dir := filepath.Join(s.Dir, "sets")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return dir, nil
}

// Load reads a set's state.
func (s Store) Load(name string) (State, error) {
	var st State
	if err := s.readable(); err != nil {
		return st, err
	}
	data, err := os.ReadFile(s.file(name))
	if errors.Is(err, os.ErrNotExist) {
		return st, s.Unknown(name)
	}
	if err != nil {
		return st, fmt.Errorf("read state of %s: %w", name, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("read state of %s: %s: %w", name, s.file(name), err)
	}
	return st, nil
}

// Unknown is the error for a set the store does not hold.
func (s Store) Unknown(name string) error {
	return fmt.Errorf("%w %q (state dir %s)%s", ErrUnknownSet, name, s.Dir, s.didYouMean(name))
}

// Save writes a set's state atomically (temp file, fsync, rename, fsync of the
// directory), private to the user (0600).
func (s Store) Save(st State) error {
	path := s.file(st.Spec.Name)
	if err := s.secure(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err == nil {
		var renaming func(os.FileInfo)
		if s.Saved != nil {
			renaming = func(fi os.FileInfo) { s.Saved(st.Spec.Name, fi) }
		}
		err = writeFileAtomicTold(path, data, renaming)
	}
	if err != nil {
		return s.writeFailed("save state of "+st.Spec.Name, err)
	}
	return nil
}

// Delete forgets a set, durably: a crash after it does not bring the set back.
func (s Store) Delete(name string) error {
	if err := removeFileDurable(s.file(name)); err != nil {
		return fmt.Errorf("delete state of %s: %w", name, err)
	}
	return s.forgetPrevious(name)
}

// List returns the names of the sets in the store, sorted.
func (s Store) List() ([]string, error) {
	if err := s.readable(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(s.Dir, "sets"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sets: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	return names, nil
}

// LockAndLoad takes the set's lock and loads its state; the caller unlocks.
func (s Store) LockAndLoad(ctx context.Context, name string) (State, func(), error) {
	unlock, err := s.Lock(ctx, name)
	if err != nil {
		return State{}, nil, err
	}
	st, err := s.Load(name)
	if err != nil {
		unlock()
		return st, nil, err
	}
	return st, unlock, nil
}

// Update runs fn on the set's state under its lock (waiting for it until ctx
// ends) and saves the result.
// fn gets exists=false (and a zero State) for a set the store does not hold.
func (s Store) Update(ctx context.Context, name string, fn func(st *State, exists bool) error) (State, error) {
	unlock, err := s.Lock(ctx, name)
	if err != nil {
		return State{}, err
	}
	defer unlock()
	st, err := s.Load(name)
	exists := err == nil
	if err != nil && !errors.Is(err, ErrUnknownSet) {
		return State{}, err
	}
	if err := fn(&st, exists); err != nil {
		return State{}, err
	}
	return st, s.Save(st)
}
