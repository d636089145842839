package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// PreviousLines is how many of its last lines are kept of a replica
// container that ostset removes after it failed.
const PreviousLines = 200

// Previous is the end of the output of a replica's previous container: one
// that exited and that ostset removed to recreate it, taking its logs with
// it. It is what logs --previous prints, as kubectl's does for a pod's
// previous container. One file per replica name holds the last one, so
// what is kept is bounded by the number of ordinals.
type Previous struct {
	Replica   string    `json:"replica"`
	Container string    `json:"container"`
	Revision  string    `json:"revision"`
	Reason    string    `json:"reason"`
	Removed   time.Time `json:"removed"`
	Lines     []string  `json:"lines"`
}

func (s Store) previousFile(replica string) string {
	return filepath.Join(s.Dir, "previous", replica+".json")
}

// LoadPrevious returns what was kept of the replica's previous container;
// ok is false when nothing was.
func (s Store) LoadPrevious(replica string) (Previous, bool, error) {
	var p Previous
	if err := s.readable(); err != nil {
		return p, false, err
	}
	data, err := os.ReadFile(s.previousFile(replica))
	if errors.Is(err, os.ErrNotExist) {
		return p, false, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err != nil {
		return p, false, fmt.Errorf("previous logs of %s: %w", replica, err)
	}
	return p, true, nil
}

func (s Store) SavePrevious(p Previous) error {
	if err := s.secure(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.previousFile(p.Replica)), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return writeFileAtomicTold(s.previousFile(p.Replica), data, nil)
}

// forgetPrevious removes what was kept of the set's replicas' previous
// containers: the set is gone, and a set of the same name made later is
// another.
func (s Store) forgetPrevious(set string) error {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "previous"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("previous logs of %s: %w", set, err)
	}
	for _, e := range entries {
		replica, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if _, ok := plan.ParseReplicaName(set, replica); !ok {
			continue
		}
		if err := os.Remove(s.previousFile(replica)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("previous logs of %s: %w", replica, err)
		}
	}
	return nil
}
