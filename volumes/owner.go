package volumes

import (
	"fmt"

	"github.com/ostset/ostset/config"
)

// FileOwner is a numeric user and group.
type FileOwner struct{ UID, GID int }

// RootOwner is the owner a claim gives the root directory of its volumes while
// they are new (created by the replica's create, or still empty), nil for none.
func RootOwner(c config.VolumeClaimTemplate) (*FileOwner, error) {
	if c.Owner == "" {
		return nil, nil
	}
	uid, gid, err := config.ParseOwner(c.Owner)
	if err != nil {
		return nil, fmt.Errorf("volumeClaimTemplates %s: owner: %w", c.Name, err)
	}
	return &FileOwner{UID: uid, GID: gid}, nil
}
