package setcheck

import (
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
)

// With an engine that is not on this host, each bind source of the user's is
// named as unchecked; a ConfigMap volume's directory and a named volume are
// not bind sources of the user's.
func TestUncheckedBinds(t *testing.T) {
	s := config.Set{Name: "web", Source: "set.yaml:3", Template: config.Template{
		VolumeMounts: []config.VolumeMount{
			{Source: "/srv/data", Target: "/data"},
			{Source: "/state/manifest-volumes/web/conf", Target: "/etc/conf"},
			{Source: "shared", Target: "/shared"},
		},
		InitContainers: []config.InitContainer{{Name: "i", VolumeMounts: []config.VolumeMount{{Source: "/srv/seed", Target: "/seed"}}}},
	}}
	got := UncheckedBinds([]config.Set{s}, "/state/manifest-volumes", "tcp://10.0.0.5:2375")
	want := []string{
		"set.yaml:3: template.volumeMounts[0].source: bind source /srv/data is not checked: the engine (tcp://10.0.0.5:2375) is not on this host; the path must exist on the engine's host",
		"set.yaml:3: template.initContainers[0].volumeMounts[0].source: bind source /srv/seed is not checked: the engine (tcp://10.0.0.5:2375) is not on this host; the path must exist on the engine's host",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
}
