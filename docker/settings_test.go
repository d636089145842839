package docker

import (
	"reflect"
	"testing"

	"github.com/moby/moby/api/types/container"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ostset/ostset/engine/plan"
)

func TestCreateOptionsSettings(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "db", Name: "db-0", Image: "sha256:x", ContainerSettings: plan.ContainerSettings{
		StopSignal: "SIGINT",
		ShmSize:    256 << 20,
		Ulimits:    []plan.Ulimit{{Name: "nofile", Soft: 1024, Hard: 65536}},
		Sysctls:    map[string]string{"net.core.somaxconn": "1024"},
		Tmpfs:      map[string]string{"/run": "size=64m"},
		CapAdd:     []string{"CAP_SYS_NICE"},
		CapDrop:    []string{"CAP_NET_RAW"},
		Init:       new(true),
		ExtraHosts: []string{"backup:10.0.0.9"},
		Runtime:    "crun", Platform: "linux/arm64/v8", PidMode: "host", OpenStdin: true, Tty: true,
	}}
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	h := opts.HostConfig
	checks := []struct {
		what      string
		got, want any
	}{
		{"stop signal", opts.Config.StopSignal, "SIGINT"},
		{"shm size", h.ShmSize, int64(256 << 20)},
		{"ulimits", h.Ulimits, []*container.Ulimit{{Name: "nofile", Soft: 1024, Hard: 65536}}},
		{"sysctls", h.Sysctls, map[string]string{"net.core.somaxconn": "1024"}},
		{"tmpfs", h.Tmpfs, map[string]string{"/run": "size=64m"}},
		{"cap add", h.CapAdd, []string{"CAP_SYS_NICE"}},
		{"cap drop", h.CapDrop, []string{"CAP_NET_RAW"}},
		{"init", *h.Init, true},
		{"extra hosts", h.ExtraHosts, []string{"backup:10.0.0.9"}},
		{"runtime", h.Runtime, "crun"},
		{"pid", h.PidMode, container.PidMode("host")},
		{"stdin, tty", [2]bool{opts.Config.OpenStdin, opts.Config.Tty}, [2]bool{true, true}},
		{"platform", *opts.Platform, ocispec.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %#v, want %#v", c.what, c.got, c.want)
		}
	}
	none, err := createOptions(plan.ReplicaSpec{Set: "db", Name: "db-0", Image: "sha256:x"})
	if err != nil {
		t.Fatal(err)
	}
	if h := none.HostConfig; h.Init != nil || h.ShmSize != 0 || h.Ulimits != nil || h.Tmpfs != nil || none.Config.StopSignal != "" || none.Platform != nil || h.Runtime != "" {
		t.Errorf("no settings gave %+v", h)
	}
}
