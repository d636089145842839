package compose

import (
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

func TestIsSecretVariable(t *testing.T) {
	for name, want := range map[string]bool{
		"POSTGRES_PASSWORD": true, "MYSQL_ROOT_PASSWORD": true, "DB_PASS": true, "API_KEY": true, "GITHUB_TOKEN": true,
		"AWS_SECRET_ACCESS_KEY": true, "client_secret": true, "PGADMIN_DEFAULT_PASSWORD": true,
		"MYSQL_ROOT_PASSWORD_FILE": false, "POSTGRES_USER": false, "KEYCLOAK_URL": false, "PASSENGER_COUNT": false, "MONKEY": false,
	} {
		if got := IsSecretVariable(name); got != want {
			t.Errorf("IsSecretVariable(%q) = %v, want %v", name, got, want)
		}
	}
}

// For a cluster, a password in the environment is a key of a Secret read
// through secretKeyRef, and a secrets: file a Secret volume at /run/secrets;
// the project's own sets keep them as compose gives them.
func TestForKubernetesSecrets(t *testing.T) {
	p, err := loadYAML(t, `
name: shop
services:
  db:
    image: mysql:8
    environment: {MYSQL_ROOT_PASSWORD: s3cret, MYSQL_DATABASE: shop, MYSQL_PASSWORD_FILE: /run/secrets/pw}
    secrets: [pw]
secrets:
  pw:
    file: pw.txt
`, map[string]string{"pw.txt": "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	sets, objects, _ := p.ForKubernetes()
	db := sets[0]
	if _, plain := db.Template.Env["MYSQL_ROOT_PASSWORD"]; plain || db.Template.Env["MYSQL_DATABASE"] != "shop" || db.Template.Env["MYSQL_PASSWORD_FILE"] == "" {
		t.Errorf("env %v: want the password out, the rest in", db.Template.Env)
	}
	if r := db.Template.EnvRefs["MYSQL_ROOT_PASSWORD"]; r.Kind != envref.Secret || r.Name != "shop-db-env" || r.Key != "MYSQL_ROOT_PASSWORD" {
		t.Errorf("envRefs %+v", db.Template.EnvRefs)
	}
	want := []config.KubernetesVolume{{Name: "run-secrets", Kind: "Secret", Object: "shop-db-run-secrets", MountPath: "/run/secrets", DefaultMode: 0o444}}
	if db.Kubernetes == nil || len(db.Kubernetes.Volumes) != 1 || db.Kubernetes.Volumes[0] != want[0] {
		t.Errorf("kubernetes %+v, want volumes %+v", db.Kubernetes, want)
	}
	text := string(objects)
	for _, w := range []string{"kind: Secret\nmetadata:\n  name: shop-db-env\ndata:\n  MYSQL_ROOT_PASSWORD: czNjcmV0\n", "name: shop-db-run-secrets\ndata:\n  pw: aHVudGVyMg==\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("objects lack %q:\n%s", w, text)
		}
	}
	if own := only(t, p); own.Template.Env["MYSQL_ROOT_PASSWORD"] != "s3cret" || own.Kubernetes != nil {
		t.Error("the project's own set changed")
	}
}
