package volumes

import (
	"fmt"
	"time"
)

// Use is the last use of a per-ordinal volume: the revision of the replica
// that used it and until when. The engine records it when a replica is
// created on the volume and when the replica releases it.
type Use struct {
	Revision string    `json:"revision"`
	Until    time.Time `json:"until"`
	// Released: the ordinal left the set (scale-down); a replica handed over by an
	// update or a recreation is not released.
	Released bool `json:"released,omitempty"`
}

// Stale describes a volume a new replica reuses from an earlier life of its
// ordinal: one its replica released (a scale-down, ostset down) or that the
// state has no record of (made before the set, or by a version of ostset that
// kept none). A volume whose replica went without releasing it (an update, a
// recreation, a replica removed by hand, a removal cut short) is not news: its
// record is the one its replica's create left. "" when it is not news.
func Stale(replica, volume string, created time.Time, use Use) string {
	if !use.Until.IsZero() && !use.Released {
		return ""
	}
	msg := fmt.Sprintf("%s reuses volume %s (created %s", replica, volume, created.Local().Format("2006-01-02 15:04"))
	if use.Revision != "" {
		msg += fmt.Sprintf(", last used by revision %s until %s", use.Revision, use.Until.Local().Format("2006-01-02 15:04"))
	}
	return msg + ")"
}
