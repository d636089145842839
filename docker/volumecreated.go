package docker

import (
	"maps"
	"time"

	"github.com/moby/moby/api/types/volume"
)

// labelCreated holds when ostset created a volume (RFC 3339, UTC). Docker's
// own CreatedAt of a local volume is its directory's time, which other
// tools and restores change; the label is what "reuses volume … (created
// …)" reports.
const labelCreated = "io.ostset.created"

// withCreated is labels plus the creation time at.
func withCreated(labels map[string]string, at time.Time) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[labelCreated] = at.UTC().Format(time.RFC3339)
	return out
}

// volumeCreated is when ostset created v, from its label, else Docker's time
// (a volume made before ostset kept the label).
func volumeCreated(v volume.Volume) time.Time {
	if t, err := time.Parse(time.RFC3339, v.Labels[labelCreated]); err == nil {
		return t
	}
	created, _ := time.Parse(time.RFC3339Nano, v.CreatedAt)
	return created
}
