package docker

import (
	"testing"
	"time"

	"github.com/moby/moby/api/types/volume"

	"github.com/ostset/ostset/engine/plan"
)

// A volume's creation time is when ostset created it (its label), not the
// time Docker reports for its directory.
func TestVolumeCreatedFromLabel(t *testing.T) {
	made := time.Date(2026, 11, 20, 14, 2, 0, 0, time.UTC)
	labels := withCreated(map[string]string{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "3"}, made)
	v := toVolume(volume.Volume{Name: "data-web-3", Labels: labels, CreatedAt: "2026-11-25T09:00:00Z"})
	if !v.Created.Equal(made) {
		t.Errorf("created %v, want the label's %v", v.Created, made)
	}
	old := toVolume(volume.Volume{Name: "data-web-4", Labels: map[string]string{plan.LabelOrdinal: "4"}, CreatedAt: "2026-11-25T09:00:00Z"})
	if old.Created.Format(time.RFC3339) != "2026-11-25T09:00:00Z" {
		t.Errorf("without the label: %v, want Docker's time", old.Created)
	}
}
