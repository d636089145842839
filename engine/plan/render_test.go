package plan

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

// Every string field of the template is expanded per replica, with the set's
// replica count and peers as they are when the replica is created.
func TestRenderExpandsEveryStringField(t *testing.T) {
	s := config.Set{Name: "etcd", Replicas: new(3), Template: config.Template{
		Image: "etcd:3.4",
		Args: []string{"--name={{.Name}}",
			"--initial-cluster={{range $i, $p := .Peers}}{{if $i}},{{end}}{{$p.Name}}=http://{{$p.Host}}:2380{{end}}"},
		WorkingDir: "/var/lib/{{.Name}}",
		Labels:     map[string]string{"member": "{{.Ordinal}}-of-{{.Replicas}}"},
		Healthcheck: &config.Healthcheck{Test: []string{"CMD", "etcdctl", "--endpoints=http://{{.Name}}.{{.Service}}:2379", "endpoint", "health"},
			Interval: config.Duration(time.Second)},
		VolumeMounts: []config.VolumeMount{{Source: "/backups/{{.Name}}", Target: "/backup/{{.Ordinal}}"}},
	}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	r, err := Render(s, config.RevisionName("etcd", spec.Hash()), spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantCmd := []string{"--name=etcd-1", "--initial-cluster=etcd-0=http://etcd-0.etcd:2380,etcd-1=http://etcd-1.etcd:2380,etcd-2=http://etcd-2.etcd:2380"}
	if !slices.Equal(r.Cmd, wantCmd) {
		t.Errorf("cmd %q, want %q", r.Cmd, wantCmd)
	}
	if r.WorkingDir != "/var/lib/etcd-1" || r.Labels["member"] != "1-of-3" {
		t.Errorf("workingDir %q, labels %v", r.WorkingDir, r.Labels)
	}
	if want := []string{"CMD", "etcdctl", "--endpoints=http://etcd-1.etcd:2379", "endpoint", "health"}; !reflect.DeepEqual(r.Healthcheck.Test, want) {
		t.Errorf("healthcheck %q, want %q", r.Healthcheck.Test, want)
	}
	if want := []Mount{{Type: "bind", Source: "/backups/etcd-1", Target: "/backup/1"}}; !reflect.DeepEqual(r.Mounts, want) {
		t.Errorf("mounts %+v, want %+v", r.Mounts, want)
	}
	if spec.Template.Healthcheck.Test[2] != "--endpoints=http://{{.Name}}.{{.Service}}:2379" {
		t.Errorf("rendering changed the revision: %q", spec.Template.Healthcheck.Test)
	}
}

// The container settings are rendered as the engine takes them: canonical
// signal and capability names, bytes, sorted limits, tmpfs by target, hosts
// as host:ip.
func TestRenderContainerSettings(t *testing.T) {
	s := config.Set{Name: "db", Template: config.Template{
		Image:      "postgres",
		StopSignal: "int",
		ShmSize:    "256m",
		Ulimits:    map[string]config.Ulimit{"nofile": {Soft: 1024, Hard: 65536}, "memlock": {Soft: -1, Hard: -1}},
		Sysctls:    map[string]string{"net.core.somaxconn": "1024"},
		Tmpfs:      []string{"/run:size=64m,mode=1777", "/tmp"},
		CapAdd:     []string{"sys_nice"},
		CapDrop:    []string{"CAP_NET_RAW"},
		Init:       new(true),
		ExtraHosts: []string{"backup=10.0.0.9", "v6=[::1]", "gw:host-gateway"},
		Labels:     map[string]string{config.LabelComposeContainer: "runtime=crun,platform=linux/arm64,pid=host,stdin_open=true,tty=true"},
	}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	r, err := Render(s, "db-1", spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := ContainerSettings{
		StopSignal: "SIGINT",
		ShmSize:    256 << 20,
		Ulimits:    []Ulimit{{Name: "memlock", Soft: -1, Hard: -1}, {Name: "nofile", Soft: 1024, Hard: 65536}},
		Sysctls:    map[string]string{"net.core.somaxconn": "1024"},
		Tmpfs:      map[string]string{"/run": "size=64m,mode=1777", "/tmp": ""},
		CapAdd:     []string{"CAP_SYS_NICE"},
		CapDrop:    []string{"CAP_NET_RAW"},
		Init:       new(true),
		ExtraHosts: []string{"backup:10.0.0.9", "v6:::1", "gw:host-gateway"},
		Runtime:    "crun", Platform: "linux/arm64", PidMode: "host", OpenStdin: true, Tty: true,
	}
	if !reflect.DeepEqual(r.ContainerSettings, want) {
		t.Errorf("settings\n%+v\nwant\n%+v", r.ContainerSettings, want)
	}
	empty, err := Render(config.Set{Name: "db", Template: config.Template{Image: "x"}}, "db-1", config.RevisionSpec{}, 0)
	if err != nil || !reflect.DeepEqual(empty.ContainerSettings, ContainerSettings{}) {
		t.Errorf("no settings rendered as %+v, %v", empty.ContainerSettings, err)
	}
	bad := config.Set{Name: "db", Template: config.Template{Image: "x", Labels: map[string]string{config.LabelComposeContainer: "pid=container:x"}}}
	if _, err := Render(bad, "db-1", bad.RevisionSpec("x"), 0); err == nil || !strings.Contains(err.Error(), `"pid=container:x": ostset knows`) {
		t.Errorf("an unknown setting in the label: %v", err)
	}
}

func TestRenderClaimOwner(t *testing.T) {
	s := config.Set{Name: "pg", Template: config.Template{Image: "postgres"}, VolumeClaimTemplates: []config.VolumeClaimTemplate{
		{Name: "data", MountPath: "/var/lib/postgresql/data", Owner: "999:998"}, {Name: "logs", MountPath: "/logs"}}}
	s.ApplyDefaults()
	r, err := Render(s, "pg-1", s.RevisionSpec("sha256:img"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Volumes[0]; v.Name != "data-pg-2" || v.MountPath != "/var/lib/postgresql/data" || v.RootOwner == nil || *v.RootOwner != (volumes.FileOwner{UID: 999, GID: 998}) {
		t.Errorf("owned claim rendered as %+v", v)
	}
	if v := r.Volumes[1]; v.MountPath != "/logs" || v.RootOwner != nil {
		t.Errorf("claim without owner rendered as %+v", v)
	}
}

// A set mapped from a compose service answers to the per-ordinal names of the
// service as well as its own: "db-0" and "db-0.db" for set shop-db, and to the
// service's network aliases.
func TestRenderComposeServiceAliases(t *testing.T) {
	s := config.Set{Name: "shop-db", ServiceName: "db", Replicas: new(2), Template: config.Template{
		Image: "postgres:15", Labels: map[string]string{config.LabelComposeService: "db", config.LabelComposeAliases: "database,pg"},
	}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	r, err := Render(s, config.RevisionName(s.Name, spec.Hash()), spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"shop-db-1", "shop-db-1.db", "db", "db-1", "db-1.db", "database", "pg"}; !slices.Equal(r.Aliases, want) {
		t.Errorf("aliases %q, want %q", r.Aliases, want)
	}
}

// A set on several networks is created on the first and joins the others
// before it starts, with its DNS names on each and each network's own aliases
// on that network only.
func TestRenderSeveralNetworks(t *testing.T) {
	s := config.Set{Name: "db", Replicas: new(1), Networks: []config.NetworkAttachment{
		{Name: "front", Aliases: []string{"www"}}, {Name: "back", Aliases: []string{"store"}}, {Name: "admin"},
	}, Template: config.Template{Image: "postgres:15", InitContainers: []config.InitContainer{{Name: "migrate", Image: "postgres:15"}}}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	rev := config.RevisionName(s.Name, spec.Hash())
	r, err := Render(s, rev, spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"db-0", "db-0.db", "db", "db.default", "db.default.svc", "db.default.svc.cluster.local",
		"db-0.db.default", "db-0.db.default.svc", "db-0.db.default.svc.cluster.local"}
	if r.Network != "front" || !slices.Equal(r.Aliases, append(slices.Clone(names), "www")) {
		t.Errorf("created on %s with aliases %q, want front with %q and www", r.Network, r.Aliases, names)
	}
	want := []NetworkJoin{{Name: "back", Aliases: append(slices.Clone(names), "store")}, {Name: "admin", Aliases: names}}
	if !reflect.DeepEqual(r.OtherNetworks, want) {
		t.Errorf("other networks %+v, want %+v", r.OtherNetworks, want)
	}
	init, err := RenderInit(s, rev, spec, 0, "migrate")
	if err != nil {
		t.Fatal(err)
	}
	if init.Network != "front" || !reflect.DeepEqual(init.OtherNetworks, []NetworkJoin{{Name: "back"}, {Name: "admin"}}) {
		t.Errorf("init container on %s and %+v, want front, back and admin with no aliases", init.Network, init.OtherNetworks)
	}
}

// Reservations, Kubernetes' requests, become Docker's memory reservation and
// CPU shares (1024 a CPU, at least 2); without them the engine's defaults.
func TestRenderReservations(t *testing.T) {
	for _, tt := range []struct {
		r              *config.Resources
		memory, shares int64
	}{
		{nil, 0, 0},
		{&config.Resources{CPUs: "0.5", Memory: "1Gi"}, 1 << 30, 512},
		{&config.Resources{CPUs: "0.001"}, 0, 2},
		{&config.Resources{Memory: "64Mi"}, 64 << 20, 0},
	} {
		s := config.Set{Name: "zk", Template: config.Template{Image: "zk", Resources: config.Resources{Reservations: tt.r}}}
		s.ApplyDefaults()
		r, err := Render(s, "zk-0", s.RevisionSpec("sha256:img"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.MemoryReservation != tt.memory || r.CPUShares != tt.shares {
			t.Errorf("%+v rendered as memory reservation %d, CPU shares %d; want %d, %d", tt.r, r.MemoryReservation, r.CPUShares, tt.memory, tt.shares)
		}
	}
}

// A replica answers to the cluster-local names a pod has, in the namespace
// its manifest named (default without one), and to the other Services that
// select its pods; its domainname is its Service's domain, so hostname -d
// says what it says in a pod.
func TestRenderClusterNames(t *testing.T) {
	s := config.Set{Name: "zk", ServiceName: "zk-hs", Replicas: new(3), Template: config.Template{Image: "zk", InitContainers: []config.InitContainer{{Name: "conf", Image: "zk"}}},
		Kubernetes: &config.KubernetesNames{Namespace: "prod", Services: []string{"zk-cs"}}}
	s.ApplyDefaults()
	spec := s.RevisionSpec("sha256:img")
	r, err := Render(s, "zk-1", spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"zk-1", "zk-1.zk-hs", "zk-hs", "zk-hs.prod", "zk-hs.prod.svc", "zk-hs.prod.svc.cluster.local",
		"zk-1.zk-hs.prod", "zk-1.zk-hs.prod.svc", "zk-1.zk-hs.prod.svc.cluster.local",
		"zk-cs", "zk-cs.prod", "zk-cs.prod.svc", "zk-cs.prod.svc.cluster.local"}
	if !slices.Equal(r.Aliases, want) || r.Domainname != "zk-hs.prod.svc.cluster.local" {
		t.Errorf("aliases %q, domainname %q; want %q, zk-hs.prod.svc.cluster.local", r.Aliases, r.Domainname, want)
	}
	if init, err := RenderInit(s, "zk-1", spec, 1, "conf"); err != nil || init.Hostname != "zk-1" || init.Domainname != "zk-hs.prod.svc.cluster.local" {
		t.Errorf("init container: hostname %q, domainname %q, %v; want the replica's", init.Hostname, init.Domainname, err)
	}
	s.Kubernetes = nil
	if r, _ := Render(s, "zk-1", s.RevisionSpec("sha256:img"), 1); r.Domainname != "zk-hs.default.svc.cluster.local" || slices.Contains(r.Aliases, "zk-cs") {
		t.Errorf("without a manifest: aliases %q, domainname %q; want namespace default and no zk-cs", r.Aliases, r.Domainname)
	}
}
