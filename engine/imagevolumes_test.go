package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// up warns about every VOLUME of the image that no claim, volume mount or
// tmpfs covers at that very path, and about no other.
func TestApplyWarnsAboutUncoveredImageVolumes(t *testing.T) {
	rt := enginetest.New()
	rt.ImageVolumesOf = map[string][]string{"sha256:pg": {"/cache", "/conf", "/data", "/run/x", "/var/lib/db/data/"}}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	s := config.Set{Name: "web", Template: config.Template{Image: "pg:1",
		VolumeMounts: []config.VolumeMount{{Source: "/etc/app", Target: "/conf/"}}, Tmpfs: []string{"/run/x:size=1m"}},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}, {Name: "db", MountPath: "/var/lib/db"}}}
	s.ApplyDefaults()
	res, err := c.ApplyImages(context.Background(), s, state.ImageIDs{Main: "sha256:pg"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 2 {
		t.Fatalf("warnings %q, want /cache and /var/lib/db/data", res.Warnings)
	}
	for i, want := range []string{"template.image pg:1 declares VOLUME /cache, which no volumeClaimTemplates mountPath, volumeMounts target or tmpfs covers",
		"declares VOLUME /var/lib/db/data, "} {
		if !strings.Contains(res.Warnings[i], want) || !strings.Contains(res.Warnings[i], "its data is lost at each replacement") {
			t.Errorf("warning %q lacks %q", res.Warnings[i], want)
		}
	}
	if !strings.Contains(res.Warnings[1], "the mount at /var/lib/db does not cover it") {
		t.Errorf("warning %q does not say that the parent's claim does not cover it", res.Warnings[1])
	}
}
