package engine_test

import (
	"context"
	"os"
	"path/filepath"
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

// up warns about a containerPort the image does not expose when it exposes
// another, naming the file and line; not when the image exposes nothing.
func TestApplyWarnsAboutUnexposedContainerPorts(t *testing.T) {
	rt := enginetest.New()
	rt.ImagePortsOf = map[string][]string{"sha256:redis": {"6379/tcp"}}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	file := filepath.Join(t.TempDir(), "cache.yaml")
	data := "name: cache\ntemplate:\n  image: redis:7\n  ports:\n    - containerPort: 6379\n    - containerPort: 6380\n      hostPort: 16380\n    - containerPort: 6379\n      protocol: udp\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sets, err := config.Load(file, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	res, err := c.ApplyImages(context.Background(), s, state.ImageIDs{Main: "sha256:redis"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		file + ":6: template.ports[1].containerPort: 6380/tcp is not a port that image redis:7 exposes (it exposes 6379/tcp)",
		file + ":8: template.ports[2].containerPort: 6379/udp is not a port that image redis:7 exposes",
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", res.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(res.Warnings[i], w) {
			t.Errorf("warning %q, want it to begin %q", res.Warnings[i], w)
		}
	}
	// An image that exposes nothing says nothing of its ports.
	s.Template.Image = "busybox"
	res, err = c.ApplyImages(context.Background(), s, state.ImageIDs{Main: "sha256:busybox"}, "test")
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("an image without EXPOSE: %q, %v", res.Warnings, err)
	}
}
