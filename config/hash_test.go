package config

import (
	"github.com/ostset/ostset/config/envref"

	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"
)

const testImageID = "sha256:4c3ad1b2c9e0f6a1d87b5e0f2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e"

// These hashes are a promise to users: if one changes, upgrading ostset rolls
// every replica of every set. Never update them to make a test pass; bump the
// canonical form's version instead, deliberately.
func TestHashGolden(t *testing.T) {
	tests := []struct {
		name string
		spec RevisionSpec
		want string
	}{{
		name: "minimal",
		spec: Set{Name: "web", Template: Template{Image: "redis:7"}}.RevisionSpec(testImageID),
		want: "f64c33bc9f",
	}, {
		name: "full",
		spec: validSet().RevisionSpec(testImageID),
		want: "d2aa1acb08",
	}, {
		name: "restarted",
		spec: func() RevisionSpec {
			r := validSet().RevisionSpec(testImageID)
			r.RestartedAt = "2026-01-02T03:04:05Z"
			return r
		}(),
		want: "15a8405044",
	}, {
		name: "escaping",
		spec: Set{Name: "web", Template: Template{Image: "x", Env: map[string]string{"A": "<b>&\"é\"\n\t\u2028"}}}.RevisionSpec(testImageID),
		want: "15078e5145",
	}, {
		name: "container settings",
		spec: func() RevisionSpec {
			s := validSet()
			s.Template.StopSignal = "SIGINT"
			s.Template.ShmSize = "256Mi"
			s.Template.Ulimits = map[string]Ulimit{"nofile": {Soft: 65536, Hard: 65536}, "memlock": {Soft: -1, Hard: -1}}
			s.Template.Sysctls = map[string]string{"net.core.somaxconn": "1024"}
			s.Template.Tmpfs = []string{"/run:size=64m"}
			s.Template.CapAdd = []string{"SYS_NICE"}
			s.Template.CapDrop = []string{"NET_RAW"}
			s.Template.Init = ptr(true)
			s.Template.ExtraHosts = []string{"db:10.0.0.1"}
			return s.RevisionSpec(testImageID)
		}(),
		want: "9bfa2c9bfb",
	}, {
		name: "unknown image ID",
		spec: Set{Name: "web", Template: Template{Image: "redis:7"}}.RevisionSpec(""),
		want: "a2d19afc07",
	}}
	for _, tt := range tests {
		if got := tt.spec.Hash(); got != tt.want {
			t.Errorf("%s: Hash() = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// The canonical form, spelled out, to show what changed when a golden hash
// breaks.
func TestHashCanonicalForm(t *testing.T) {
	r := Set{Name: "web", Template: Template{
		Image:       "redis:7",
		Env:         map[string]string{"B": "2", "A": "1"},
		Healthcheck: &Healthcheck{Test: []string{"NONE"}, Interval: Duration(90 * time.Second)},
	}}.RevisionSpec(testImageID)
	r.RestartedAt = "2026-01-02T03:04:05Z"
	b, err := json.Marshal(r.canonical())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":2,"template":{"image":"` + testImageID + `","env":{"A":"1","B":"2"},"healthcheck":{"test":["NONE"],"interval":"1m30s"},"restartPolicy":"unless-stopped"},"serviceName":"web","network":"ostset","restartedAt":"2026-01-02T03:04:05Z"}`
	if string(b) != want {
		t.Errorf("canonical form\n got %s\nwant %s", b, want)
	}
}

// Container settings count by value: a signal, a size or a capability written
// another way does not roll.
func TestHashSettingsByValue(t *testing.T) {
	a, b := validSet(), validSet()
	a.Template.StopSignal, b.Template.StopSignal = "SIGINT", "int"
	a.Template.ShmSize, b.Template.ShmSize = "64m", "67108864"
	a.Template.CapAdd, b.Template.CapAdd = []string{"SYS_NICE", "CAP_IPC_LOCK"}, []string{"cap_ipc_lock", "SYS_NICE", "sys_nice"}
	if ha, hb := a.RevisionSpec(testImageID).Hash(), b.RevisionSpec(testImageID).Hash(); ha != hb {
		t.Errorf("same settings written differently hash %s and %s", ha, hb)
	}
	b.Template.StopSignal = "SIGQUIT"
	if a.RevisionSpec(testImageID).Hash() == b.RevisionSpec(testImageID).Hash() {
		t.Error("a different stop signal hashes the same")
	}
}

// Resources count by value: writing the same limit another way does not roll.
func TestHashResourcesByValue(t *testing.T) {
	a, b := validSet(), validSet()
	a.Template.Resources = Resources{CPUs: "0.5", Memory: "256Mi"}
	b.Template.Resources = Resources{CPUs: ".50", Memory: "268435456"}
	if ha, hb := a.RevisionSpec(testImageID).Hash(), b.RevisionSpec(testImageID).Hash(); ha != hb {
		t.Errorf("same limits written differently hash %s and %s", ha, hb)
	}
	b.Template.Resources.Memory = "512Mi"
	if a.RevisionSpec(testImageID).Hash() == b.RevisionSpec(testImageID).Hash() {
		t.Error("a different memory limit hashes the same")
	}
}

func TestHashFormat(t *testing.T) {
	h := validSet().RevisionSpec(testImageID).Hash()
	if !regexp.MustCompile(`^[0-9a-f]{10}$`).MatchString(h) {
		t.Errorf("Hash() = %q, want 10 lowercase hex characters", h)
	}
	if got := RevisionName("web", h); got != "web-"+h {
		t.Errorf("RevisionName = %q", got)
	}
}

func TestHashIgnoresWhatDoesNotShapeAReplica(t *testing.T) {
	base := validSet().RevisionSpec(testImageID).Hash()
	tests := []struct {
		name  string
		edit  func(*Set)
		image string
	}{
		{name: "replicas", edit: func(s *Set) { s.Replicas = ptr(7) }},
		{name: "partition", edit: func(s *Set) { s.UpdateStrategy.RollingUpdate.Partition = 2 }},
		{name: "maxUnavailable", edit: func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "50%" }},
		{name: "strategy", edit: func(s *Set) { s.UpdateStrategy.Type = OnDelete }},
		{name: "pod management", edit: func(s *Set) { s.PodManagementPolicy = Parallel }},
		{name: "minReadySeconds", edit: func(s *Set) { s.MinReadySeconds = 30 }},
		{name: "history", edit: func(s *Set) { s.RevisionHistoryLimit = ptr(2) }},
		{name: "ordinals", edit: func(s *Set) { s.Ordinals.Start = 5 }},
		{name: "retention", edit: func(s *Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = Delete }},
		{name: "grace period", edit: func(s *Set) { s.TerminationGracePeriodSeconds = ptr(60) }},
		{name: "source", edit: func(s *Set) { s.Source = "other.yaml:3" }},
		{name: "image reference (only the ID counts)", edit: func(s *Set) { s.Template.Image = "registry.example/redis:renamed" }},
		{name: "pull policy", edit: func(s *Set) { s.Template.ImagePullPolicy = PullAlways }},
		{name: "explicit defaults", edit: func(s *Set) {
			s.ApplyDefaults()
			s.Template.RestartPolicy = "unless-stopped"
		}},
		{name: "map order", edit: func(s *Set) {
			s.Template.Env = map[string]string{"SET": "{{.Set}}", "ORDINAL": "{{.Ordinal}}"}
		}},
		{name: "durations by value", edit: func(s *Set) { s.Template.Healthcheck.Interval = Duration(2000 * time.Millisecond) }},
		{name: "empty settings", edit: func(s *Set) {
			s.Template.Ulimits, s.Template.Sysctls = map[string]Ulimit{}, map[string]string{}
			s.Template.Tmpfs, s.Template.CapAdd, s.Template.CapDrop, s.Template.ExtraHosts = []string{}, []string{}, []string{}, []string{}
		}},
	}
	for _, tt := range tests {
		s := validSet()
		tt.edit(&s)
		if got := s.RevisionSpec(testImageID).Hash(); got != base {
			t.Errorf("%s changed the hash: %s, want %s", tt.name, got, base)
		}
	}
}

func TestHashNormalisesEmpty(t *testing.T) {
	empty := Set{Name: "web", ServiceName: "web", Template: Template{
		Image:        "x",
		Command:      []string{},
		Args:         []string{},
		Env:          map[string]string{},
		Labels:       map[string]string{},
		Ports:        []Port{},
		VolumeMounts: []VolumeMount{},
		Healthcheck:  &Healthcheck{Test: []string{}},
	}, VolumeClaimTemplates: []VolumeClaimTemplate{{Name: "d", MountPath: "/d", DriverOpts: map[string]string{}}}}
	nilled := Set{Name: "web", Template: Template{Image: "x", Healthcheck: &Healthcheck{}},
		VolumeClaimTemplates: []VolumeClaimTemplate{{Name: "d", MountPath: "/d"}}}
	if a, b := empty.RevisionSpec("id").Hash(), nilled.RevisionSpec("id").Hash(); a != b {
		t.Errorf("empty slices and maps hash %s, nil ones %s", a, b)
	}
	noClaims := Set{Name: "web", Template: Template{Image: "x"}, VolumeClaimTemplates: []VolumeClaimTemplate{}}
	nilClaims := Set{Name: "web", Template: Template{Image: "x"}}
	if a, b := noClaims.RevisionSpec("id").Hash(), nilClaims.RevisionSpec("id").Hash(); a != b {
		t.Errorf("empty claims hash %s, nil claims %s", a, b)
	}
}

func TestHashChangesWithTheReplica(t *testing.T) {
	base := validSet().RevisionSpec(testImageID).Hash()
	tests := []struct {
		name    string
		edit    func(*Set)
		imageID string
	}{
		{name: "image ID", edit: func(*Set) {}, imageID: "sha256:0000000000000000000000000000000000000000000000000000000000000000"},
		{name: "env value", edit: func(s *Set) { s.Template.Env["SET"] = "other" }},
		{name: "env key", edit: func(s *Set) { s.Template.Env["NEW"] = "" }},
		{name: "env ref", edit: func(s *Set) {
			s.Template.EnvRefs = map[string]envref.Ref{"PW": {Kind: envref.Secret, Name: "db", Key: "pw", Digest: envref.Digest([]byte("a"))}}
		}},
		{name: "env ref init", edit: func(s *Set) {
			s.Template.InitContainers = []InitContainer{{Name: "i", Image: "x", EnvRefs: map[string]envref.Ref{"PW": {Kind: envref.Secret, Name: "db", Key: "pw", Digest: "d"}}}}
		}},
		{name: "command", edit: func(s *Set) { s.Template.Command = s.Template.Command[:1] }},
		{name: "command vs args", edit: func(s *Set) {
			s.Template.Args = append(s.Template.Command[1:], s.Template.Args...)
			s.Template.Command = s.Template.Command[:1]
		}},
		{name: "args", edit: func(s *Set) { s.Template.Args = []string{"--port", "6380"} }},
		{name: "working dir", edit: func(s *Set) { s.Template.WorkingDir = "/srv" }},
		{name: "user", edit: func(s *Set) { s.Template.User = "1000" }},
		{name: "labels", edit: func(s *Set) { s.Template.Labels["team"] = "b" }},
		{name: "port", edit: func(s *Set) { s.Template.Ports[0].HostPort++ }},
		{name: "port protocol", edit: func(s *Set) { s.Template.Ports[0].Protocol = "sctp" }},
		{name: "healthcheck", edit: func(s *Set) { s.Template.Healthcheck.Retries = 4 }},
		{name: "healthcheck interval", edit: func(s *Set) { s.Template.Healthcheck.Interval = Duration(3 * time.Second) }},
		{name: "no healthcheck", edit: func(s *Set) { s.Template.Healthcheck = nil }},
		{name: "mount", edit: func(s *Set) { s.Template.VolumeMounts[0].ReadOnly = false }},
		{name: "cpus", edit: func(s *Set) { s.Template.Resources.CPUs = "1" }},
		{name: "memory", edit: func(s *Set) { s.Template.Resources.Memory = "1Gi" }},
		{name: "reservations", edit: func(s *Set) { s.Template.Resources.Reservations = &Resources{Memory: "64Mi"} }},
		{name: "cpu reservation", edit: func(s *Set) { s.Template.Resources.Reservations = &Resources{CPUs: "0.5"} }},
		{name: "restart policy", edit: func(s *Set) { s.Template.RestartPolicy = "always" }},
		{name: "stop signal", edit: func(s *Set) { s.Template.StopSignal = "SIGINT" }},
		{name: "shm size", edit: func(s *Set) { s.Template.ShmSize = "256m" }},
		{name: "ulimits", edit: func(s *Set) { s.Template.Ulimits = map[string]Ulimit{"nofile": {Soft: 1024, Hard: 65536}} }},
		{name: "sysctls", edit: func(s *Set) { s.Template.Sysctls = map[string]string{"net.core.somaxconn": "1024"} }},
		{name: "tmpfs", edit: func(s *Set) { s.Template.Tmpfs = []string{"/run"} }},
		{name: "cap add", edit: func(s *Set) { s.Template.CapAdd = []string{"SYS_NICE"} }},
		{name: "cap drop", edit: func(s *Set) { s.Template.CapDrop = []string{"NET_RAW"} }},
		{name: "init true", edit: func(s *Set) { s.Template.Init = ptr(true) }},
		{name: "init false", edit: func(s *Set) { s.Template.Init = ptr(false) }},
		{name: "extra hosts", edit: func(s *Set) { s.Template.ExtraHosts = []string{"db:10.0.0.1"} }},
		{name: "claim", edit: func(s *Set) { s.VolumeClaimTemplates[0].MountPath = "/srv" }},
		{name: "claim driver", edit: func(s *Set) { s.VolumeClaimTemplates[0].DriverOpts = map[string]string{"type": "tmpfs"} }},
		{name: "claim owner", edit: func(s *Set) { s.VolumeClaimTemplates[0].Owner = "999:999" }},
		{name: "service name", edit: func(s *Set) { s.ServiceName = "other" }},
		{name: "network", edit: func(s *Set) { s.Network = "other" }},
		{name: "services", edit: func(s *Set) { s.Kubernetes = &KubernetesNames{Services: []string{"zk-cs"}} }},
	}
	for _, tt := range tests {
		s := validSet()
		tt.edit(&s)
		id := tt.imageID
		if id == "" {
			id = testImageID
		}
		if got := s.RevisionSpec(id).Hash(); got == base {
			t.Errorf("%s did not change the hash", tt.name)
		}
	}
	restarted := validSet().RevisionSpec(testImageID)
	restarted.RestartedAt = "2026-01-02T03:04:05Z"
	if restarted.Hash() == base {
		t.Error("RestartedAt did not change the hash")
	}
}

// Every field of the replica model must be in the canonical form, or a change
// to it would not roll the set. When this fails, add the new field to
// hashSpecV1 with omitempty (so that existing hashes stay the same) and to
// this list. The fields in notHashed are left out on purpose.
func TestHashCoversEveryField(t *testing.T) {
	notHashed := map[string]bool{
		"Template.ImagePullPolicy":      true, // how the image ID is found; the ID is hashed
		"InitContainer.ImagePullPolicy": true,
	}
	hashed := map[reflect.Type][]string{
		reflect.TypeFor[Template](): {"Image", "Command", "Args", "Env", "EnvRefs", "WorkingDir", "User", "Labels", "Ports", "Healthcheck", "Liveness", "Startup", "VolumeMounts", "Resources", "RestartPolicy",
			"StopSignal", "ShmSize", "Ulimits", "Sysctls", "Tmpfs", "CapAdd", "CapDrop", "Init", "ExtraHosts", "InitContainers", "Lifecycle"},
		reflect.TypeFor[InitContainer]():       {"Name", "Image", "Command", "Args", "Env", "EnvRefs", "WorkingDir", "User", "VolumeMounts", "Resources"},
		reflect.TypeFor[Ulimit]():              {"Soft", "Hard"},
		reflect.TypeFor[Healthcheck]():         {"Test", "Interval", "Timeout", "Retries", "StartPeriod", "StartInterval"},
		reflect.TypeFor[Resources]():           {"CPUs", "Memory", "Reservations"},
		reflect.TypeFor[NetworkAttachment]():   {"Name", "Aliases", "IPv4Address", "IPv6Address", "IPAM"},
		reflect.TypeFor[Port]():                {"ContainerPort", "HostPort", "HostIP", "Protocol"},
		reflect.TypeFor[VolumeMount]():         {"Source", "Target", "ReadOnly"},
		reflect.TypeFor[VolumeClaimTemplate](): {"Name", "MountPath", "Driver", "DriverOpts", "Owner", "NoCopy"},
		reflect.TypeFor[RevisionSpec]():        {"Template", "ImageID", "VolumeClaimTemplates", "ServiceName", "Network", "Networks", "RestartedAt", "InitImageIDs", "Services"},
	}
	for typ, want := range hashed {
		var got []string
		for f := range typ.Fields() {
			if !notHashed[typ.Name()+"."+f.Name] {
				got = append(got, f.Name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v has fields %v; the revision hash covers %v", typ, got, want)
		}
	}
}

func TestRevisionSpecIsACopy(t *testing.T) {
	s := validSet()
	r := s.RevisionSpec(testImageID)
	r.Template.Env["SET"] = "changed"
	r.Template.Command[0] = "changed"
	r.Template.Ports[0].Protocol = "udp"
	r.Template.Healthcheck.Test[0] = "NONE"
	r.VolumeClaimTemplates[0].Name = "changed"
	if !reflect.DeepEqual(s, validSet()) {
		t.Errorf("changing the RevisionSpec changed the Set: %+v", s)
	}
	if s.Template.Ports[0].Protocol != "" {
		t.Error("RevisionSpec applied defaults to the Set's own ports")
	}
	if r.Template.Image != "redis:7" || r.ImageID != testImageID || r.ServiceName != "web" || r.Network != "ostset" {
		t.Errorf("RevisionSpec = %+v", r)
	}
}

// withInit is validSet with two init containers.
func withInit() Set {
	s := validSet()
	s.Template.InitContainers = []InitContainer{{
		Name:         "clone",
		Image:        "postgres:16",
		Command:      []string{"sh", "-c", "clone {{.Ordinal}}"},
		Env:          map[string]string{"B": "2", "A": "1"},
		WorkingDir:   "/x",
		User:         "999",
		VolumeMounts: []VolumeMount{{Source: "conf", Target: "/conf", ReadOnly: true}},
		Resources:    Resources{CPUs: "0.5", Memory: "256Mi"},
	}, {Name: "chown", Image: "busybox", Args: []string{"chown", "-R", "999", "/data"}}}
	return s
}

func initSpec(s Set, ids map[string]string) RevisionSpec {
	r := s.RevisionSpec(testImageID)
	r.InitImageIDs = ids
	return r
}

// Init containers are pinned like the rest, and a set without them keeps the
// hash it had before they existed (TestHashGolden).
func TestHashInitContainersGolden(t *testing.T) {
	r := initSpec(withInit(), map[string]string{"clone": "sha256:aa", "chown": "sha256:bb"})
	b, err := json.Marshal(r.canonical().Template.InitContainers)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"clone","image":"sha256:aa","command":["sh","-c","clone {{.Ordinal}}"],"env":{"A":"1","B":"2"},"workingDir":"/x","user":"999","volumeMounts":[{"source":"conf","target":"/conf","readOnly":true}],"cpus":"500000000","memory":"268435456"},{"name":"chown","image":"sha256:bb","args":["chown","-R","999","/data"]}]`
	if string(b) != want {
		t.Errorf("canonical init containers\n got %s\nwant %s", b, want)
	}
	if got, want := r.Hash(), "89b05b9385"; got != want {
		t.Errorf("Hash() = %s, want %s", got, want)
	}
	empty := validSet()
	empty.Template.InitContainers = []InitContainer{}
	if got, base := empty.RevisionSpec(testImageID).Hash(), validSet().RevisionSpec(testImageID).Hash(); got != base {
		t.Errorf("an empty init container list hashes %s, none %s", got, base)
	}
}

func TestHashInitContainers(t *testing.T) {
	ids := map[string]string{"clone": "sha256:aa", "chown": "sha256:bb"}
	base := initSpec(withInit(), ids).Hash()
	if base == validSet().RevisionSpec(testImageID).Hash() {
		t.Fatal("init containers did not change the hash")
	}
	changes := []struct {
		name string
		edit func(*Set)
		ids  map[string]string
	}{
		{name: "image ID", edit: func(*Set) {}, ids: map[string]string{"clone": "sha256:cc", "chown": "sha256:bb"}},
		{name: "image ID unknown", edit: func(*Set) {}, ids: map[string]string{"chown": "sha256:bb"}},
		{name: "order", edit: func(s *Set) { slices.Reverse(s.Template.InitContainers) }},
		{name: "name", edit: func(s *Set) { s.Template.InitContainers[1].Name = "fix" }},
		{name: "command", edit: func(s *Set) { s.Template.InitContainers[0].Command = nil }},
		{name: "args", edit: func(s *Set) { s.Template.InitContainers[1].Args = nil }},
		{name: "env", edit: func(s *Set) { s.Template.InitContainers[0].Env["A"] = "x" }},
		{name: "working dir", edit: func(s *Set) { s.Template.InitContainers[0].WorkingDir = "" }},
		{name: "user", edit: func(s *Set) { s.Template.InitContainers[0].User = "0" }},
		{name: "mount", edit: func(s *Set) { s.Template.InitContainers[0].VolumeMounts[0].ReadOnly = false }},
		{name: "cpus", edit: func(s *Set) { s.Template.InitContainers[0].Resources.CPUs = "1" }},
		{name: "memory", edit: func(s *Set) { s.Template.InitContainers[0].Resources.Memory = "1Gi" }},
		{name: "removed", edit: func(s *Set) { s.Template.InitContainers = s.Template.InitContainers[:1] }},
	}
	for _, tt := range changes {
		s := withInit()
		tt.edit(&s)
		if tt.ids == nil {
			tt.ids = ids
		}
		if initSpec(s, tt.ids).Hash() == base {
			t.Errorf("%s did not change the hash", tt.name)
		}
	}
	same := []struct {
		name string
		edit func(*Set)
	}{
		{name: "pull policy", edit: func(s *Set) { s.Template.InitContainers[0].ImagePullPolicy = PullAlways }},
		{name: "image reference (only the ID counts)", edit: func(s *Set) { s.Template.InitContainers[0].Image = "other:1" }},
		{name: "quantities by value", edit: func(s *Set) { s.Template.InitContainers[0].Resources.Memory = "268435456" }},
	}
	for _, tt := range same {
		s := withInit()
		tt.edit(&s)
		if got := initSpec(s, ids).Hash(); got != base {
			t.Errorf("%s changed the hash: %s, want %s", tt.name, got, base)
		}
	}
}

// A referenced Secret's new value is a new revision: the replicas get the
// value when they are created, so only a rollout gives it to them.
func TestHashChangesWithAReferencedValue(t *testing.T) {
	hash := func(value string) string {
		s := validSet()
		s.Template.EnvRefs = map[string]envref.Ref{"PW": {Kind: envref.Secret, Name: "db", Key: "pw", Digest: envref.Digest([]byte(value))}}
		return s.RevisionSpec(testImageID).Hash()
	}
	one, again := hash("one"), hash("one")
	if one == hash("two") {
		t.Error("a new value of the Secret's key did not change the hash")
	}
	if one != again {
		t.Error("the same value hashed differently")
	}
}

// Hooks are part of the revision; a template without any keeps its hash, as
// do networks without addresses or pools.
func TestHashLifecycleAndAddresses(t *testing.T) {
	s := validSet()
	before := s.RevisionSpec(testImageID).Hash()
	s.Template.Lifecycle = &Lifecycle{}
	if h := s.RevisionSpec(testImageID).Hash(); h != before {
		t.Errorf("an empty lifecycle changed the hash: %s, was %s", h, before)
	}
	s.Template.Lifecycle.PostStart = []Hook{{Command: []string{"warm"}}}
	withHook := s.RevisionSpec(testImageID).Hash()
	if withHook == before {
		t.Error("a post_start hook did not change the hash")
	}
	s.Networks = []NetworkAttachment{{Name: s.Network}}
	if h := s.RevisionSpec(testImageID).Hash(); h != withHook {
		t.Errorf("networks: [%s] changed the hash", s.Network)
	}
	s.Networks[0].IPv4Address = "10.0.0.2"
	if h := s.RevisionSpec(testImageID).Hash(); h == withHook {
		t.Error("a fixed address did not change the hash")
	}
}
