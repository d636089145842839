package compose

import (
	"context"
	"flag"
	"fmt"
	"github.com/compose-spec/compose-go/v2/types"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
)

// loadYAML loads one compose file written from text in a fresh directory,
// with extra files beside it.
func loadYAML(t *testing.T, text string, extra map[string]string) (*Project, error) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range extra {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(context.Background(), Options{Files: []string{file}})
}

func mustLoad(t *testing.T, text string) *Project {
	t.Helper()
	p, err := loadYAML(t, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func only(t *testing.T, p *Project) config.Set {
	t.Helper()
	if len(p.Sets) != 1 {
		t.Fatalf("%d sets, want 1", len(p.Sets))
	}
	return p.Sets[0]
}

func TestIsComposeFile(t *testing.T) {
	for text, want := range map[string]bool{
		"services:\n  web:\n    image: nginx\n":    true,
		"name: p\nservices: {}\n":                  true,
		"name: web\ntemplate:\n  image: nginx\n":   false,
		"apiVersion: apps/v1\nkind: StatefulSet\n": false,
		"- a\n- b\n": false,
		"":           false,
	} {
		if got := IsComposeFile([]byte(text)); got != want {
			t.Errorf("IsComposeFile(%q) = %v, want %v", text, got, want)
		}
	}
}

// Without x-ostset a service behaves as compose users expect: Parallel, one
// replica unless deploy.replicas or scale, shared named volumes.
func TestServiceWithoutXOstsetIsParallel(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  web:
    image: nginx
    scale: 3
    volumes: [cache:/cache]
volumes:
  cache: {}
`)
	s := only(t, p)
	if s.Name != "demo-web" || s.ServiceName != "web" || s.PodManagementPolicy != config.Parallel || *s.Replicas != 3 {
		t.Errorf("set %s service %s policy %s replicas %d", s.Name, s.ServiceName, s.PodManagementPolicy, *s.Replicas)
	}
	if want := []config.VolumeMount{{Source: "demo_cache", Target: "/cache"}}; !reflect.DeepEqual(s.Template.VolumeMounts, want) || len(s.VolumeClaimTemplates) != 0 {
		t.Errorf("mounts %+v claims %+v, want the named volume shared", s.Template.VolumeMounts, s.VolumeClaimTemplates)
	}
	if s.Network != "demo_default" {
		t.Errorf("network %q, want the project's default network", s.Network)
	}
	if s.UpdateStrategy.Type != config.RollingUpdate || s.UpdateStrategy.RollingUpdate.MaxUnavailable != config.DefaultMaxUnavailable {
		t.Errorf("update strategy %+v: a mapped set has the set file's defaults, as a loaded one", s.UpdateStrategy)
	}
}

// x-ostset takes the set file's names; a named volume that a claim names
// becomes per-ordinal at the volume's path.
func TestXOstset(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  db:
    image: postgres:15
    deploy: {replicas: 3}
    volumes: [data:/var/lib/postgresql/data]
    x-ostset:
      updateStrategy:
        rollingUpdate: {partition: 2, maxUnavailable: 1}
        progressDeadlineSeconds: 120
        autoRollback: true
      minReadySeconds: 5
      ordinals: {start: 1}
      persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}
      volumeClaimTemplates:
        - {name: data, owner: "999:999"}
volumes:
  data: {}
`)
	s := only(t, p)
	if s.PodManagementPolicy != config.OrderedReady || s.MinReadySeconds != 5 || s.Ordinals.Start != 1 ||
		s.UpdateStrategy.RollingUpdate.Partition != 2 || *s.UpdateStrategy.ProgressDeadlineSeconds != 120 || !s.UpdateStrategy.AutoRollback ||
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled != config.Delete {
		t.Errorf("x-ostset not applied: %+v", s)
	}
	c := s.VolumeClaimTemplates
	if len(c) != 1 || c[0].Name != "data" || c[0].MountPath != "/var/lib/postgresql/data" || c[0].Owner != "999:999" || len(s.Template.VolumeMounts) != 0 {
		t.Errorf("claims %+v mounts %+v", s.VolumeClaimTemplates, s.Template.VolumeMounts)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %q: a per-ordinal data path is no shared database", p.Warnings)
	}
}

func TestXOstsetUnknownFieldIsListed(t *testing.T) {
	p := mustLoad(t, `
services:
  db:
    image: postgres:15
    x-ostset:
      podManagementPolicy: OrderedReady
      replica: 3
`)
	if len(p.Unmapped) != 1 || !strings.Contains(p.Unmapped[0], "services.db.x-ostset:") || !strings.Contains(p.Unmapped[0], "replica") {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

func TestContainerFields(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  app:
    image: app:1
    entrypoint: ["/bin/app"]
    command: serve --port 80
    environment:
      A: "1"
      UNSET:
    working_dir: /srv
    user: "1000:1000"
    labels: {team: core}
    restart: unless-stopped
    stop_signal: SIGINT
    stop_grace_period: 1m30s
    shm_size: 64m
    ulimits:
      nproc: 512
      nofile: {soft: 1024, hard: 2048}
    sysctls: {net.core.somaxconn: 1024}
    tmpfs: [/run]
    cap_add: [NET_ADMIN]
    cap_drop: [ALL]
    init: true
    extra_hosts: ["db.local:10.0.0.1"]
    deploy:
      resources:
        limits: {cpus: "1.5", memory: 256m}
    pull_policy: always
`)
	s := only(t, p)
	tp := s.Template
	init := true
	want := config.Template{
		Image: "app:1", Command: []string{"/bin/app"}, Args: []string{"serve", "--port", "80"},
		Env: map[string]string{"A": "1"}, WorkingDir: "/srv", User: "1000:1000",
		Labels:        map[string]string{"team": "core", LabelProject: "demo", LabelService: "app"},
		RestartPolicy: "unless-stopped", StopSignal: "SIGINT", ShmSize: "67108864",
		Ulimits: map[string]config.Ulimit{"nproc": {Soft: 512, Hard: 512}, "nofile": {Soft: 1024, Hard: 2048}},
		Sysctls: map[string]string{"net.core.somaxconn": "1024"}, Tmpfs: []string{"/run"},
		CapAdd: []string{"NET_ADMIN"}, CapDrop: []string{"ALL"}, Init: &init, ExtraHosts: []string{"db.local=10.0.0.1"},
		Resources:       config.Resources{CPUs: "1.5", Memory: "268435456"},
		ImagePullPolicy: config.PullAlways,
	}
	if !reflect.DeepEqual(tp, want) {
		t.Errorf("template\n got %+v\nwant %+v", tp, want)
	}
	if *s.TerminationGracePeriodSeconds != 90 {
		t.Errorf("grace %d", *s.TerminationGracePeriodSeconds)
	}
	if len(p.Unmapped) != 0 {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

func TestResourcesWithoutDeploy(t *testing.T) {
	p := mustLoad(t, "services:\n  a:\n    image: x\n    mem_limit: 1g\n    cpus: 0.25\n")
	if got := only(t, p).Template.Resources; got != (config.Resources{CPUs: "0.25", Memory: "1073741824"}) {
		t.Errorf("resources %+v", got)
	}
}

func TestHealthcheck(t *testing.T) {
	for _, tc := range []struct{ hc, want string }{
		{`{test: ["CMD", "pg_isready"], interval: 2s, timeout: 1s, retries: 3, start_period: 10s}`, `{Test:[CMD pg_isready] Interval:2s Timeout:1s Retries:3 StartPeriod:10s StartInterval:0s}`},
		{`{test: "curl -f localhost"}`, `{Test:[CMD-SHELL curl -f localhost] Interval:0s Timeout:0s Retries:0 StartPeriod:0s StartInterval:0s}`},
		{`{disable: true}`, `{Test:[NONE] Interval:0s Timeout:0s Retries:0 StartPeriod:0s StartInterval:0s}`},
		{`{test: ["NONE"]}`, `{Test:[NONE] Interval:0s Timeout:0s Retries:0 StartPeriod:0s StartInterval:0s}`},
	} {
		p := mustLoad(t, "services:\n  a:\n    image: x\n    healthcheck: "+tc.hc+"\n")
		if got := fmtHC(only(t, p).Template.Healthcheck); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.hc, got, tc.want)
		}
	}
}

func fmtHC(h *config.Healthcheck) string {
	if h == nil {
		return "nil"
	}
	return fmt.Sprintf("%+v", *h)
}

// Ports: one published port with several replicas follows hostPort +
// ordinal, and says so; a host range gives one port per ordinal.
func TestPorts(t *testing.T) {
	p := mustLoad(t, `
services:
  a:
    image: x
    deploy: {replicas: 3}
    ports: ["5432:5432", "127.0.0.1:8080-8082:80/udp", "9000"]
    expose: ["7000"]
`)
	want := []config.Port{
		{ContainerPort: 5432, HostPort: 5432, Protocol: "tcp"},
		{ContainerPort: 80, HostPort: 8080, HostIP: "127.0.0.1", Protocol: "udp"},
		{ContainerPort: 9000, Protocol: "tcp"},
		{ContainerPort: 7000, Protocol: "tcp"},
	}
	if got := only(t, p).Template.Ports; !reflect.DeepEqual(got, want) {
		t.Errorf("ports\n got %+v\nwant %+v", got, want)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "ordinal i publishes on 5432+i (5432-5434)") {
		t.Errorf("warnings %q", p.Warnings)
	}
	p = mustLoad(t, "services:\n  a:\n    image: x\n    scale: 3\n    ports: [\"8080-8081:80\"]\n")
	if len(p.Unmapped) != 1 || !strings.Contains(p.Unmapped[0], "the range 8080-8081 has 2 ports for 3 replicas") {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

func TestVolumes(t *testing.T) {
	p, err := loadYAML(t, `
name: demo
services:
  a:
    image: x
    deploy: {replicas: 2}
    volumes:
      - ./conf:/etc/app:ro
      - data:/var/lib/mysql
      - type: tmpfs
        target: /scratch
        tmpfs: {size: 1048576}
      - /anonymous
volumes:
  data:
    name: shared-data
`, map[string]string{"conf/app.conf": "x"})
	if err != nil {
		t.Fatal(err)
	}
	s := only(t, p)
	if len(s.Template.VolumeMounts) != 2 || !filepath.IsAbs(s.Template.VolumeMounts[0].Source) || !s.Template.VolumeMounts[0].ReadOnly ||
		s.Template.VolumeMounts[1] != (config.VolumeMount{Source: "shared-data", Target: "/var/lib/mysql"}) {
		t.Errorf("mounts %+v", s.Template.VolumeMounts)
	}
	if !reflect.DeepEqual(s.Template.Tmpfs, []string{"/scratch:size=1048576"}) {
		t.Errorf("tmpfs %q", s.Template.Tmpfs)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "volume data at /var/lib/mysql is shared by all 2 replicas") {
		t.Errorf("warnings %q", p.Warnings)
	}
	if len(p.Unmapped) != 0 || len(s.VolumeClaimTemplates) != 1 || s.VolumeClaimTemplates[0].Name != "anon-anonymous" {
		t.Errorf("unmapped %q, claims %+v", p.Unmapped, s.VolumeClaimTemplates)
	}
}

func TestNetworks(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  a:
    image: x
    networks:
      back:
        aliases: [api, api.internal]
  b:
    image: x
    networks: [front, back]
networks:
  back: {}
  front: {name: shared-front}
`)
	a, b := p.Sets[0], p.Sets[1]
	if a.Network != "demo_back" || a.Template.Labels[LabelAliases] != "api,api.internal" {
		t.Errorf("a: network %s labels %v", a.Network, a.Template.Labels)
	}
	if a.Networks != nil {
		t.Errorf("a: one network written as networks %v: its revision would change", a.Networks)
	}
	want := []config.NetworkAttachment{{Name: "demo_back"}, {Name: "shared-front"}}
	if b.Network != "demo_back" || !reflect.DeepEqual(b.Networks, want) {
		t.Errorf("b: network %s, networks %+v, want %+v", b.Network, b.Networks, want)
	}
	if len(p.Unmapped) != 0 {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

// Each network of a service keeps its own aliases; the highest priority comes
// first, and the set is created on it.
func TestNetworksAliasesAndPriority(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  a:
    image: x
    networks:
      back: {aliases: [store]}
      front: {aliases: [www], priority: 10}
networks: {back: {}, front: {}}
`)
	a := only(t, p)
	want := []config.NetworkAttachment{{Name: "demo_front", Aliases: []string{"www"}}, {Name: "demo_back", Aliases: []string{"store"}}}
	if a.Network != "demo_front" || !reflect.DeepEqual(a.Networks, want) || a.Template.Labels[LabelAliases] != "" {
		t.Errorf("network %s, networks %+v, aliases label %q; want %+v and no label", a.Network, a.Networks, a.Template.Labels[LabelAliases], want)
	}
}

// A service name that is not a DNS label gives the set a serviceName that is,
// and still answers to the name as written.
func TestServiceNameNotADNSLabel(t *testing.T) {
	p := mustLoad(t, "name: demo\nservices:\n  My_Service:\n    image: x\n")
	s := only(t, p)
	if s.Name != "demo-my-service" || s.ServiceName != "my-service" || s.Template.Labels[LabelAliases] != "My_Service" {
		t.Errorf("set %s serviceName %s labels %v", s.Name, s.ServiceName, s.Template.Labels)
	}
}

// depends_on orders the sets; service_completed_successfully makes the
// dependency a job, run once per up; a cycle is an error.
func TestDependsOn(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  web:
    image: web
    depends_on:
      api: {condition: service_started}
  api:
    image: api
    depends_on:
      db: {condition: service_healthy, restart: true}
      migrate: {condition: service_completed_successfully}
  migrate:
    image: api
    command: migrate up
    environment: {DB: db}
  db:
    image: postgres
`)
	var names []string
	for _, s := range p.Sets {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "demo-db demo-api demo-web" {
		t.Errorf("order %s", got)
	}
	api := p.Sets[1]
	if len(api.Template.InitContainers) != 0 || len(p.Jobs) != 1 {
		t.Fatalf("init containers %+v, jobs %+v: want migrate as a job, run once per up", api.Template.InitContainers, p.Jobs)
	}
	job := p.Jobs[0]
	if job.Name != "demo-migrate" || *job.Replicas != 1 || job.Template.RestartPolicy != "no" || !reflect.DeepEqual(job.Template.Args, []string{"migrate", "up"}) || job.Template.Env["DB"] != "db" {
		t.Errorf("job %+v", job)
	}
	if !reflect.DeepEqual(p.Deps["demo-api"], []Dep{{Set: "demo-db", Condition: "service_healthy", Restart: true}, {Set: "demo-migrate", Condition: "service_completed_successfully"}}) ||
		!reflect.DeepEqual(p.Deps["demo-web"], []Dep{{Set: "demo-api", Condition: "service_started"}}) {
		t.Errorf("deps %+v", p.Deps)
	}
	if api.Template.Labels[LabelDependsOn] != "demo-db" {
		t.Errorf("labels %v", api.Template.Labels)
	}
	_, err := loadYAML(t, "services:\n  a:\n    image: x\n    depends_on: [b]\n  b:\n    image: x\n    depends_on: [a]\n", nil)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
}

// The loader's own features come from compose-go: .env, extends, include,
// profiles, several files merged, the project name from the directory.
func TestLoaderFeatures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".env":           "TAG=1.2\n",
		"base.yaml":      "services:\n  common:\n    image: base\n    environment: {FROM_BASE: \"yes\"}\n",
		"inc/redis.yaml": "services:\n  cache:\n    image: redis:7\n",
		"compose.yaml": `include: [inc/redis.yaml]
services:
  web:
    image: web:${TAG}
    extends: {file: base.yaml, service: common}
  debug:
    image: busybox
    profiles: [debug]
`,
		"override.yaml": "services:\n  web:\n    deploy: {replicas: 2}\n",
	}
	for name, data := range files {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(context.Background(), Options{Files: []string{filepath.Join(dir, "compose.yaml"), filepath.Join(dir, "override.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Base(dir)
	var names []string
	for _, s := range p.Sets {
		names = append(names, s.Name)
	}
	if want := SetName(project, "cache") + " " + SetName(project, "web"); strings.Join(names, " ") != want {
		t.Errorf("sets %v, want %s (the debug profile is off)", names, want)
	}
	web := p.Sets[1]
	if web.Template.Image != "web:1.2" || web.Template.Env["FROM_BASE"] != "yes" || *web.Replicas != 2 {
		t.Errorf("web: image %s env %v replicas %d", web.Template.Image, web.Template.Env, *web.Replicas)
	}
	p, err = Load(context.Background(), Options{Files: []string{filepath.Join(dir, "compose.yaml")}, ProjectName: "named", Profiles: []string{"debug"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sets) != 3 || p.Name != "named" {
		t.Errorf("with --profile debug -p named: %d sets, project %s", len(p.Sets), p.Name)
	}
}

// A mapped set is checked with the set file's rules.
func TestMappedSetIsValidated(t *testing.T) {
	_, err := loadYAML(t, "services:\n  a:\n    image: x\n    x-ostset: {podManagementPolicy: Sometimes}\n", nil)
	if err == nil || !strings.Contains(err.Error(), "podManagementPolicy") {
		t.Errorf("err %v", err)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files of the fixtures")

// Each fixture loads, and what it uses that ostset cannot map is listed
// exactly as in its golden file: the compose files of public projects
// (testdata/public, each with its SOURCE and LICENSE) and ostset's own.
func TestFixtures(t *testing.T) {
	dirs, err := filepath.Glob("testdata/fixtures/*/compose.yaml")
	public, _ := filepath.Glob("testdata/public/*/compose.yaml")
	if err != nil || len(dirs) == 0 || len(public) < 25 {
		t.Fatalf("fixtures: %v, %d of ostset's own, %d public", err, len(dirs), len(public))
	}
	dirs = append(dirs, public...)
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			p, err := Load(context.Background(), Options{Files: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, u := range p.Unmapped {
				b.WriteString("unmapped: " + u + "\n")
			}
			for _, w := range p.Warnings {
				b.WriteString("warning: " + w + "\n")
			}
			golden := filepath.Join(dir, "unmapped.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
			}
			// Every public file loads without --lenient.
			if strings.Contains(dir, "public") && len(p.Unmapped) > 0 {
				t.Errorf("loads only with --lenient:\n%s", strings.Join(p.Unmapped, "\n"))
			}
		})
	}
}

// healthcheck.start_interval maps when the engine takes it (API 1.44), and is
// listed, naming the engine's version, when it does not.
func TestStartInterval(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "compose.yaml")
	text := "name: demo\nservices:\n  a:\n    image: x\n    healthcheck:\n      test: [CMD, ok]\n      start_period: 30s\n      start_interval: 1s\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := Load(context.Background(), Options{Files: []string{file}, EngineAPI: "1.41"})
	if err != nil {
		t.Fatal(err)
	}
	want := file + ":8: services.a.healthcheck.start_interval: the engine API has it from 1.44 (Docker 25), this engine speaks 1.41: without it, the interval applies during the start period too"
	if len(old.Unmapped) != 1 || old.Unmapped[0] != want || old.Sets[0].Template.Healthcheck.StartInterval != 0 {
		t.Errorf("on 1.41: unmapped %q, healthcheck %+v; want\n%s", old.Unmapped, old.Sets[0].Template.Healthcheck, want)
	}
	recent, err := Load(context.Background(), Options{Files: []string{file}, EngineAPI: "1.44"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recent.Unmapped) != 0 || recent.Sets[0].Template.Healthcheck.StartInterval != config.Duration(time.Second) {
		t.Errorf("on 1.44: unmapped %q, healthcheck %+v; want start interval 1s", recent.Unmapped, recent.Sets[0].Template.Healthcheck)
	}
}

// A bind mount's source that compose creates when missing (the short syntax,
// or bind.create_host_path) is listed for up to create; the long syntax
// without it is not.
func TestBindHostPaths(t *testing.T) {
	p, err := loadYAML(t, `
name: demo
services:
  a:
    image: x
    volumes:
      - ./data:/data
      - {type: bind, source: ./long, target: /long}
      - {type: bind, source: ./made, target: /made, bind: {create_host_path: true}}
      - {type: bind, source: ./not, target: /not, bind: {create_host_path: false}}
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range p.HostPaths {
		got = append(got, filepath.Base(h))
		if !filepath.IsAbs(h) {
			t.Errorf("host path %s is not absolute", h)
		}
	}
	if !reflect.DeepEqual(got, []string{"data", "made"}) {
		t.Errorf("host paths %q, want data and made", p.HostPaths)
	}
	dir := t.TempDir()
	p.HostPaths = []string{filepath.Join(dir, "data"), filepath.Join(dir, "there")}
	if err := os.Mkdir(p.HostPaths[1], 0o700); err != nil {
		t.Fatal(err)
	}
	made, err := p.CreateHostPaths(func(path string) (bool, bool) {
		_, err := os.Stat(path)
		return err == nil, true
	})
	if err != nil || !reflect.DeepEqual(made, p.HostPaths[:1]) {
		t.Fatalf("made %q, %v; want %s", made, err, p.HostPaths[0])
	}
	if fi, err := os.Stat(p.HostPaths[0]); err != nil || !fi.IsDir() {
		t.Errorf("%s: %v", p.HostPaths[0], err)
	}
	if made, err := p.CreateHostPaths(func(string) (bool, bool) { return false, false }); err != nil || made != nil {
		t.Errorf("an engine whose host cannot be seen: made %q, %v", made, err)
	}
}

// What a service asks of its endpoint on a network, and what a project's
// network asks of the bridge, beyond what ostset maps, is listed field by
// field with its line.
func TestNetworkFieldsListed(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  a:
    image: x
    networks:
      back:
        aliases: [api]
        priority: 5
        driver_opts: {com.docker.network.endpoint.sysctls: "net.ipv4.conf.IFNAME.log_martians=1"}
        gw_priority: 10
        interface_name: back0
        ipv4_address: 10.5.0.5
networks:
  back:
    internal: true
    labels: {team: core}
`)
	got := strings.Join(p.Unmapped, "\n")
	for _, want := range []string{
		"compose.yaml:10: services.a.networks.back.driver_opts: an endpoint's driver options",
		"compose.yaml:11: services.a.networks.back.gw_priority: the engine API has it from 1.48",
		"compose.yaml:12: services.a.networks.back.interface_name: not a setting ostset gives a replica",
		"compose.yaml:13: services.a.networks.back.ipv4_address: a fixed address needs a subnet: the network has no ipam.config",
		"compose.yaml:7: services.a.networks.back: the network's internal, labels (networks.back): ostset creates a bridge with address pools and no more",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("unmapped:\n%s\nwant a line %q", got, want)
		}
	}
	if len(p.Unmapped) != 5 {
		t.Errorf("%d unmapped, want 5:\n%s", len(p.Unmapped), got)
	}
}

// network_mode host and none are the replica's network mode (host for one
// replica: more are listed at the line); another container's namespace is
// listed; post_start and pre_stop are the template's hooks.
func TestNetworkModeAndHooks(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  one:
    image: x
    network_mode: host
    ports: ["8080:80"]
    post_start:
      - command: ["sh", "-c", "echo hi > /data/hi"]
        user: root
        privileged: true
        working_dir: /data
        environment: {A: "1"}
    pre_stop:
      - command: echo bye
  many:
    image: x
    deploy: {replicas: 2}
    network_mode: host
  alone:
    image: x
    deploy: {replicas: 3}
    network_mode: none
  beside:
    image: x
    network_mode: "service:one"
`)
	one := setByName(t, p, "demo-one")
	if one.Network != "host" || len(one.Networks) != 0 || one.Template.Ports[0].HostPort != 0 || one.Validate() != nil {
		t.Errorf("one: network %q %+v, ports %+v, %v", one.Network, one.Networks, one.Template.Ports, one.Validate())
	}
	want := &config.Lifecycle{
		PostStart: []config.Hook{{Command: []string{"sh", "-c", "echo hi > /data/hi"}, User: "root", Privileged: true, WorkingDir: "/data", Env: map[string]string{"A": "1"}}},
		PreStop:   []config.Hook{{Command: []string{"echo", "bye"}}},
	}
	if !reflect.DeepEqual(one.Template.Lifecycle, want) {
		t.Errorf("lifecycle\n got %+v\nwant %+v", one.Template.Lifecycle, want)
	}
	if n := setByName(t, p, "demo-alone").Network; n != "none" {
		t.Errorf("alone: network %q", n)
	}
	if n := setByName(t, p, "demo-many").Network; n != "demo_default" {
		t.Errorf("many: network %q, want the project's", n)
	}
	got := strings.Join(p.Unmapped, "\n")
	for _, line := range []string{
		"compose.yaml:19: services.many.network_mode: host networking takes one replica: 2 replicas would share the host's ports",
		`compose.yaml:26: services.beside.network_mode: network_mode "service:one": a replica has a network namespace of its own`,
	} {
		if !strings.Contains(got, line) {
			t.Errorf("unmapped:\n%s\nwant a line %q", got, line)
		}
	}
	if len(p.Unmapped) != 2 {
		t.Errorf("%d unmapped, want 2:\n%s", len(p.Unmapped), got)
	}
}

// A fixed address on a network with pools maps for one replica, and the
// network's pools come with it; several replicas are listed.
func TestFixedAddress(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  dns:
    image: x
    networks:
      net: {ipv4_address: 172.20.0.2, ipv6_address: "fd00::2"}
  many:
    image: x
    deploy: {replicas: 2}
    networks:
      net: {ipv4_address: 172.20.0.3}
networks:
  net:
    enable_ipv6: true
    ipam:
      config:
        - {subnet: 172.20.0.0/24, gateway: 172.20.0.1, ip_range: 172.20.0.128/25}
        - {subnet: "fd00::/64"}
`)
	dns := setByName(t, p, "demo-dns")
	want := []config.NetworkAttachment{{Name: "demo_net", IPv4Address: "172.20.0.2", IPv6Address: "fd00::2",
		IPAM: []config.IPAMPool{{Subnet: "172.20.0.0/24", Gateway: "172.20.0.1", IPRange: "172.20.0.128/25"}, {Subnet: "fd00::/64"}}}}
	if !reflect.DeepEqual(dns.Networks, want) || dns.Network != "demo_net" || dns.Validate() != nil {
		t.Errorf("dns networks\n got %+v\nwant %+v\n%v", dns.Networks, want, dns.Validate())
	}
	if many := setByName(t, p, "demo-many"); many.Networks[0].IPv4Address != "" || len(many.Networks[0].IPAM) != 2 {
		t.Errorf("many networks %+v", many.Networks)
	}
	if len(p.Unmapped) != 1 || !strings.Contains(p.Unmapped[0], "compose.yaml:12: services.many.networks.net.ipv4_address: a fixed address names one container: the service has 2 replicas") {
		t.Errorf("unmapped:\n%s", strings.Join(p.Unmapped, "\n"))
	}
}

// docs/compose.md names every field of a compose service, as applied, noted
// or refused.
func TestDocsNameEveryServiceField(t *testing.T) {
	doc, err := os.ReadFile("../docs/compose.md")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		for f := range rt.Fields() {
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" || name == "-" || name == "#extensions" {
				continue
			}
			if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), "`"+name+".") && !strings.Contains(string(doc), "`"+name+":") {
				t.Errorf("docs/compose.md does not name the service field %s", name)
			}
		}
	}
	walk(reflect.TypeFor[types.ServiceConfig]())
}
