package volumes

import (
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

// Only a claim, a volume mount or a tmpfs at the very path covers a VOLUME of
// the image; a mount of a parent directory does not, and the warning says so.
func TestUncoveredImageVolumes(t *testing.T) {
	tmpl := config.Template{Image: "pg:1", VolumeMounts: []config.VolumeMount{{Source: "/etc/app", Target: "/conf/"}}, Tmpfs: []string{"/run/x:size=1m"}}
	claims := []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}, {Name: "db", MountPath: "/var/lib/db"}}
	got := UncoveredImageVolumes(tmpl, claims, []string{"/cache", "/conf", "/data", "/run/x", "/var/lib/db/data/"})
	if len(got) != 2 || !strings.Contains(got[0], "declares VOLUME /cache,") || !strings.Contains(got[1], "declares VOLUME /var/lib/db/data,") {
		t.Fatalf("warnings %q, want /cache and /var/lib/db/data", got)
	}
	if strings.Contains(got[0], "does not cover it") || !strings.Contains(got[1], "the mount at /var/lib/db does not cover it") {
		t.Errorf("warnings %q: only the second has a parent mount", got)
	}
	if got := UncoveredImageVolumes(tmpl, claims, nil); got != nil {
		t.Errorf("an image without VOLUME: %q", got)
	}
}

// A claim's owner is given to its new volumes' root; a claim without one
// gives none, and an owner that is not uid:gid names the claim.
func TestRootOwner(t *testing.T) {
	if o, err := RootOwner(config.VolumeClaimTemplate{Name: "data"}); o != nil || err != nil {
		t.Errorf("no owner: %v, %v", o, err)
	}
	if o, err := RootOwner(config.VolumeClaimTemplate{Name: "data", Owner: "999:998"}); err != nil || o == nil || *o != (FileOwner{UID: 999, GID: 998}) {
		t.Errorf("999:998: %v, %v", o, err)
	}
	if _, err := RootOwner(config.VolumeClaimTemplate{Name: "data", Owner: "postgres"}); err == nil || !strings.Contains(err.Error(), "volumeClaimTemplates data: owner:") {
		t.Errorf("a name: %v", err)
	}
}
