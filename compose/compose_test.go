package compose

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

func load(t *testing.T, files ...string) *Project {
	t.Helper()
	p, err := Load(context.Background(), Options{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func setByName(t *testing.T, p *Project, name string) config.Set {
	t.Helper()
	for _, s := range p.Sets {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no set %s in %v", name, p.Sets)
	return config.Set{}
}

func TestMapPostgresProject(t *testing.T) {
	p := load(t, "testdata/pg/compose.yaml")
	var names []string
	for _, s := range p.Sets {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "shop-db shop-app" {
		t.Errorf("sets in order: %s", got)
	}
	db := setByName(t, p, "shop-db")
	if db.ServiceName != "db" || *db.Replicas != 2 || db.PodManagementPolicy != config.OrderedReady || db.Network != "shop_default" {
		t.Errorf("db: %+v", db)
	}
	if len(db.VolumeClaimTemplates) != 1 || db.VolumeClaimTemplates[0].MountPath != "/var/lib/postgresql/data" || len(db.Template.VolumeMounts) != 0 {
		t.Errorf("db volumes: %+v %+v", db.VolumeClaimTemplates, db.Template.VolumeMounts)
	}
	app := setByName(t, p, "shop-app")
	if app.PodManagementPolicy != config.Parallel || app.Template.Ports[0].HostPort != 8080 {
		t.Errorf("app: %+v", app)
	}
	if len(app.Template.InitContainers) != 0 || len(p.Jobs) != 1 || p.Jobs[0].Name != "shop-migrate" || p.Jobs[0].Template.Image != "migrate:1" {
		t.Errorf("app init containers %+v, jobs %+v: want migrate as a job", app.Template.InitContainers, p.Jobs)
	}
	want := []Dep{{Set: "shop-db", Condition: "service_healthy", Restart: true}, {Set: "shop-migrate", Condition: "service_completed_successfully"}}
	if d := p.Deps["shop-app"]; !reflect.DeepEqual(d, want) {
		t.Errorf("app deps: %+v", d)
	}
	t.Log(strings.Join(p.Unmapped, "\n"))
	t.Log(strings.Join(p.Warnings, "\n"))
}
