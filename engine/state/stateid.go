package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ostset/ostset/engine/plan"
)

// idFile holds a state directory's identity, the value of the io.ostset.owner
// label on everything it creates.
const idFile = "id"

// storeIDs caches each state directory's ID (by absolute path) for the process:
// every pass needs it, and it never changes.
var storeIDs sync.Map

// ID returns the state directory's identity, a random ID made on first use.
func (s Store) ID() (string, error) {
	o, err := s.Owner()
	return o.ID, err
}

// Owner returns the state directory as the owner of the objects it creates: its
// ID and its absolute path.
func (s Store) Owner() (plan.Owner, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return plan.Owner{}, fmt.Errorf("state directory %s: %w", s.Dir, err)
	}
	if id, ok := storeIDs.Load(dir); ok {
		return plan.Owner{ID: id.(string), Dir: dir}, nil
	}
	id, err := loadOrMakeID(dir)
	if err != nil {
		return plan.Owner{}, err
	}
	storeIDs.Store(dir, id)
	return plan.Owner{ID: id, Dir: dir}, nil
}

// ExistingOwner is Owner without making the ID: a state directory that has
// none yet owns nothing (its Owner's ID is empty), and is left unwritten.
func (s Store) ExistingOwner() (plan.Owner, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return plan.Owner{}, fmt.Errorf("state directory %s: %w", s.Dir, err)
	}
	if id, ok := storeIDs.Load(dir); ok {
		return plan.Owner{ID: id.(string), Dir: dir}, nil
	}
	id, err := readID(filepath.Join(dir, idFile))
	if errors.Is(err, fs.ErrNotExist) {
		return plan.Owner{Dir: dir}, nil
	}
	return plan.Owner{ID: id, Dir: dir}, err
}

// loadOrMakeID reads dir/id, or makes it: the state directory (0700) if missing,
// then the ID in a temp file (0600) that is hard-linked into place, so that of
// two processes making it at once one wins and the other reads the winner's.
func loadOrMakeID(dir string) (string, error) {
	path := filepath.Join(dir, idFile)
	id, err := readID(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	id = hex.EncodeToString(b)
	tmp, err := os.CreateTemp(dir, ".id.*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("state directory identity: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = tmp.WriteString(id + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return readID(path)
	}
	if err != nil {
		return "", fmt.Errorf("state directory identity %s: %w", path, err)
	}
	return id, syncDir(dir)
}

// syncDir makes a new directory entry durable: an ID lost in a crash would
// leave the objects labelled with it to a state directory that no longer knows it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("state directory %s: sync: %w", dir, err)
	}
	return nil
}

func readID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("state directory identity: %w", err)
	}
	id := strings.TrimSpace(string(data))
	if !validID(id) {
		return "", fmt.Errorf("state directory identity %s: %q is not an ID (1 to 64 letters, digits, '.', '_' or '-')", path, id)
	}
	return id, nil
}

// validID: an ID is used as a Docker label value and printed in messages.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	return strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}
