package plan

import (
	"reflect"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
)

// An init container gets its replica's identity: hostname, OSTSET_* environment,
// expanded templates, per-ordinal volumes and network; not its DNS aliases, its
// ports or a healthcheck, and Docker never restarts it.
func TestRenderInit(t *testing.T) {
	set := testSet(func(s *config.Set) {
		s.ServiceName = "svc"
		s.Template.Labels = map[string]string{"team": "db"}
		s.Template.Ports = []config.Port{{ContainerPort: 80, HostPort: 8080, Protocol: "tcp"}}
		s.Template.InitContainers = []config.InitContainer{
			{Name: "clone", Image: "pg:16", Command: []string{"sh", "-c"}, Args: []string{"clone {{.Set}}-0.{{.Service}} as {{.Name}}"},
				Env: map[string]string{"ORD": "{{.Ordinal}}"}, WorkingDir: "/w", User: "999",
				VolumeMounts: []config.VolumeMount{{Source: "/etc/pg", Target: "/conf", ReadOnly: true}},
				Resources:    config.Resources{CPUs: "0.5", Memory: "64Mi"}},
			{Name: "chown", Image: "busybox"},
		}
		s.VolumeClaimTemplates = []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data", Driver: "local"}}
	})
	spec := set.RevisionSpec("sha256:main")
	spec.InitImageIDs = map[string]string{"clone": "sha256:pg"}
	got, err := RenderInit(set, "web-abc", spec, 2, "clone")
	if err != nil {
		t.Fatal(err)
	}
	want := ReplicaSpec{
		Set: "web", Name: "web-2-init-clone", Hostname: "web-2", Ordinal: 2, Revision: "web-abc", Image: "sha256:pg",
		Entrypoint: []string{"sh", "-c"}, Cmd: []string{"clone web-0.svc as web-2"},
		Env:        []string{"ORD=2", "OSTSET_NAME=web-2", "OSTSET_ORDINAL=2", "OSTSET_SERVICE=svc", "OSTSET_SET=web"},
		WorkingDir: "/w", User: "999",
		Labels:      map[string]string{"team": "db", LabelSet: "web", LabelOrdinal: "2", LabelRevision: "web-abc", LabelInit: "clone"},
		Network:     "ostset",
		Domainname:  "svc.default.svc.cluster.local",
		Healthcheck: &Healthcheck{Test: []string{"NONE"}},
		Mounts: []Mount{{Type: "bind", Source: "/etc/pg", Target: "/conf", ReadOnly: true},
			{Type: "volume", Source: "data-web-2", Target: "/data"}},
		Volumes:     []VolumeSpec{{Name: "data-web-2", Driver: "local", Labels: map[string]string{LabelSet: "web", LabelOrdinal: "2", LabelClaim: "data"}}},
		NanoCPUs:    500_000_000,
		MemoryBytes: 64 << 20,
		Restart:     "no",
		StopTimeout: 10 * time.Second,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RenderInit\n got %+v\nwant %+v", got, want)
	}
	if got, _ := RenderInit(set, "web-abc", spec, 0, "chown"); got.Image != "busybox" {
		t.Errorf("an init container without an image ID runs its reference, got %q", got.Image)
	}
	if _, err := RenderInit(set, "web-abc", spec, 0, "nope"); err == nil {
		t.Error("RenderInit of an init container the revision lacks")
	}
}
