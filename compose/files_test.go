package compose

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

// Secrets and configs are files at their targets, with compose's defaults
// (/run/secrets/<name>, /<name>, mode 0444), from a file, a variable or a
// text, one volume per directory of the container.
func TestSecretsAndConfigs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "db_password.txt"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "compose.yaml")
	if err := os.WriteFile(file, []byte(`
name: demo
services:
  db:
    image: x
    secrets:
      - db-password
      - source: token
        target: api_token
        uid: "1000"
        gid: "2000"
        mode: 0400
    configs:
      - source: app
        target: /etc/app/app.conf
      - source: app
        target: srv/app.conf
secrets:
  db-password:
    file: ./db_password.txt
  token:
    environment: API_TOKEN
configs:
  app:
    content: "listen 80"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("API_TOKEN", "tok")
	p, err := Load(context.Background(), Options{Files: []string{file}, ConfigDir: "/state/manifest-volumes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Unmapped) > 0 {
		t.Fatalf("unmapped %q", p.Unmapped)
	}
	s := only(t, p)
	wantMounts := []config.VolumeMount{
		{Source: "/state/manifest-volumes/demo-db/compose~etc~app", Target: "/etc/app", ReadOnly: true},
		{Source: "/state/manifest-volumes/demo-db/compose~run~secrets", Target: "/run/secrets", ReadOnly: true},
		{Source: "/state/manifest-volumes/demo-db/compose~srv", Target: "/srv", ReadOnly: true},
	}
	if !reflect.DeepEqual(s.Template.VolumeMounts, wantMounts) {
		t.Errorf("mounts %+v", s.Template.VolumeMounts)
	}
	wantFiles := []config.ConfigFile{
		{Dir: wantMounts[0].Source, Name: "app.conf", Data: []byte("listen 80"), Mode: 0o444},
		{Dir: wantMounts[1].Source, Name: "db-password", Data: []byte("s3cret\n"), Mode: 0o444, Secret: true},
		{Dir: wantMounts[1].Source, Name: "api_token", Data: []byte("tok"), Mode: 0o400, UID: 1000, GID: 2000, Secret: true},
		{Dir: wantMounts[2].Source, Name: "app.conf", Data: []byte("listen 80"), Mode: 0o444},
	}
	if !reflect.DeepEqual(p.ConfigFiles, wantFiles) {
		t.Errorf("files\n got %+v\nwant %+v", p.ConfigFiles, wantFiles)
	}
	if strings.Contains(strings.Join(slices.Collect(mapValues(s.Template.Env)), ","), "s3cret") {
		t.Error("a secret is in the environment")
	}
}

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// A secret that cannot be read is an error of the file, not a field to leave out.
func TestSecretMissing(t *testing.T) {
	_, err := loadYAML(t, `
services:
  db:
    image: x
    secrets: [pw, tok]
secrets:
  pw:
    file: ./nothing.txt
  tok:
    environment: OSTSET_TEST_UNSET_VARIABLE
`, nil)
	if err == nil || !strings.Contains(err.Error(), "services.db.secrets.0: read its file") || !strings.Contains(err.Error(), "services.db.secrets.1: the variable OSTSET_TEST_UNSET_VARIABLE is not set") {
		t.Errorf("err %v", err)
	}
}

// container_name and hostname are names a one-replica service answers to;
// with several replicas they name no one container and are listed.
func TestContainerNameAndHostname(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  db:
    image: x
    container_name: my-db
    hostname: database
  web:
    image: x
    hostname: web1
    deploy: {replicas: 2}
`)
	db := setByName(t, p, "demo-db")
	if got := db.Template.Labels[LabelAliases]; got != "my-db,database" {
		t.Errorf("db aliases %q", got)
	}
	if len(p.Unmapped) != 1 || !strings.Contains(p.Unmapped[0], `services.web.hostname: "web1" names one container, and the service has 2 replicas`) {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

// An anonymous volume is kept per ordinal, as compose keeps it across the
// container's recreation.
func TestAnonymousVolume(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  web:
    image: x
    volumes:
      - /app/node_modules
`)
	s := only(t, p)
	want := []config.VolumeClaimTemplate{{Name: "anon-app-node-modules", MountPath: "/app/node_modules", Driver: "local"}}
	if len(p.Unmapped) > 0 || !reflect.DeepEqual(s.VolumeClaimTemplates, want) || len(s.Template.VolumeMounts) != 0 {
		t.Errorf("claims %+v, mounts %+v, unmapped %q", s.VolumeClaimTemplates, s.Template.VolumeMounts, p.Unmapped)
	}
}

// develop is for docker compose watch: a warning, not a refusal.
func TestDevelopIsANote(t *testing.T) {
	p := mustLoad(t, `
services:
  web:
    image: x
    develop:
      watch:
        - action: sync
          path: ./src
          target: /src
`)
	if len(p.Unmapped) > 0 || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "services.web: develop: a note for docker compose watch, not applied") {
		t.Errorf("unmapped %q, warnings %q", p.Unmapped, p.Warnings)
	}
}

// runtime, platform, pid: host, stdin_open and tty are carried in a label of
// the template, which the engine applies (engine/plan.composeSettings).
func TestContainerLabel(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  a:
    image: x
    runtime: io.containerd.wasmedge.v1
    platform: wasi/wasm
    pid: host
    stdin_open: true
    tty: true
  b:
    image: x
    pid: "service:a"
`)
	a := setByName(t, p, "demo-a")
	if got := a.Template.Labels[config.LabelComposeContainer]; got != "runtime=io.containerd.wasmedge.v1,platform=wasi/wasm,pid=host,stdin_open=true,tty=true" {
		t.Errorf("label %q", got)
	}
	if b := setByName(t, p, "demo-b"); b.Template.Labels[config.LabelComposeContainer] != "" {
		t.Errorf("b label %q", b.Template.Labels[config.LabelComposeContainer])
	}
	if len(p.Unmapped) != 1 || !strings.Contains(p.Unmapped[0], `services.b.pid: pid "service:a"`) {
		t.Errorf("unmapped %q", p.Unmapped)
	}
}

// A pre_start hook is an init container: per replica, or on a one-replica
// service; it inherits what it does not write from its service. post_start
// is the template's lifecycle hook.
func TestPreStartHooks(t *testing.T) {
	p := mustLoad(t, `
name: demo
services:
  db:
    image: pg:16
    environment: {A: "1"}
    volumes: [data:/var/lib/data]
    ports: ["5432:5432"]
    x-ostset: {podManagementPolicy: OrderedReady}
    pre_start:
      - command: ["chown", "-R", "999", "/var/lib/data"]
        user: root
        environment: {B: "2"}
  web:
    image: web:1
    deploy: {replicas: 2}
    pre_start:
      - image: busybox
        command: ["true"]
        per_replica: true
      - command: ["migrate"]
    post_start:
      - command: ["warm"]
volumes:
  data:
`)
	db := setByName(t, p, "demo-db")
	want := []config.InitContainer{{Name: "pre-start-0", Image: "pg:16", Args: []string{"chown", "-R", "999", "/var/lib/data"}, User: "root",
		Env: map[string]string{"A": "1", "B": "2"}, VolumeMounts: []config.VolumeMount{{Source: "demo_data", Target: "/var/lib/data"}}}}
	if !reflect.DeepEqual(db.Template.InitContainers, want) {
		t.Errorf("db init containers\n got %+v\nwant %+v", db.Template.InitContainers, want)
	}
	web := setByName(t, p, "demo-web")
	if len(web.Template.InitContainers) != 1 || web.Template.InitContainers[0].Image != "busybox" {
		t.Errorf("web init containers %+v", web.Template.InitContainers)
	}
	got := strings.Join(p.Unmapped, "\n")
	if len(p.Unmapped) != 1 || !strings.Contains(got, "services.web.pre_start.1: runs once for the 2 replicas") {
		t.Errorf("unmapped:\n%s", got)
	}
	if l := web.Template.Lifecycle; l == nil || len(l.PostStart) != 1 || l.PostStart[0].Command[0] != "warm" || len(l.PreStop) != 0 {
		t.Errorf("web lifecycle %+v", l)
	}
}

// For a cluster, a named volume of a one-replica service is its claim; one
// shared by several replicas stays (the export reports it); a locally built
// image is named.
func TestForKubernetes(t *testing.T) {
	p := mustLoad(t, `
name: shop
services:
  db:
    image: mysql:8
    volumes: [db_data:/var/lib/mysql, ./conf:/etc/mysql/conf.d]
  web:
    build: .
    deploy: {replicas: 2}
    volumes: [assets:/srv/assets]
volumes:
  db_data:
  assets:
`)
	sets, _, warnings := p.ForKubernetes()
	var db, web config.Set
	for _, s := range sets {
		switch s.Name {
		case "shop-db":
			db = s
		case "shop-web":
			web = s
		}
	}
	if want := []config.VolumeClaimTemplate{{Name: "db-data", MountPath: "/var/lib/mysql"}}; !reflect.DeepEqual(db.VolumeClaimTemplates, want) ||
		len(db.Template.VolumeMounts) != 1 || db.Template.VolumeMounts[0].Target != "/etc/mysql/conf.d" {
		t.Errorf("db claims %+v, mounts %+v", db.VolumeClaimTemplates, db.Template.VolumeMounts)
	}
	if len(web.VolumeClaimTemplates) != 0 || len(web.Template.VolumeMounts) != 1 {
		t.Errorf("web claims %+v, mounts %+v", web.VolumeClaimTemplates, web.Template.VolumeMounts)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "shop-web: image shop-web is built on this host (build:): a cluster cannot pull it") {
		t.Errorf("warnings %q", warnings)
	}
	if len(setByName(t, p, "shop-db").VolumeClaimTemplates) != 0 {
		t.Error("the project's own sets changed")
	}
}
