package kube

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

const secretManifest = `apiVersion: v1
kind: Secret
metadata: {name: db-auth}
stringData: {password: s3cr3t-Value}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: db-cfg}
data: {mode: fast}
---
`

// A secretKeyRef stays a reference: the set holds the Secret's name, key and
// a digest of the value; the value goes to a file only its owner reads, at
// the path the engine reads it from when it creates a replica.
func TestSecretKeyRefStaysAReference(t *testing.T) {
	src := secretManifest + sts(`containers:
- name: db
  image: x:1
  env:
  - {name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}
  - {name: MODE, valueFrom: {configMapKeyRef: {name: db-cfg, key: mode}}}
  - {name: URL, value: "db://$(MODE)"}
  args: ["--mode=$(MODE)"]`)
	dir := t.TempDir()
	sets, files, err := parseWithFiles(config.Loader{ConfigDir: dir}, "k.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	pw := s.Template.EnvRefs["PW"]
	if pw.Kind != envref.Secret || pw.Name != "db-auth" || pw.Key != "password" || pw.Digest != envref.Digest([]byte("s3cr3t-Value")) {
		t.Errorf("PW = %+v", pw)
	}
	if m := s.Template.EnvRefs["MODE"]; m.Kind != envref.ConfigMap || m.Name != "db-cfg" || m.Key != "mode" {
		t.Errorf("MODE = %+v", m)
	}
	// A ConfigMap's value is expanded where Kubernetes expands it.
	if s.Template.Env["URL"] != "db://fast" || s.Template.Args[0] != "--mode=fast" {
		t.Errorf("env %v, args %v", s.Template.Env, s.Template.Args)
	}
	if _, inline := s.Template.Env["PW"]; inline {
		t.Error("PW is in env")
	}
	stored, _ := json.Marshal(s)
	if strings.Contains(string(stored), "s3cr3t-Value") {
		t.Errorf("the set holds the Secret's value: %s", stored)
	}
	want := pw.Path(dir, "web")
	found := false
	for _, f := range files {
		if filepath.Join(f.Dir, f.Name) == want {
			found = true
			if string(f.Data) != "s3cr3t-Value" || f.Mode != 0o600 {
				t.Errorf("value file %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no file at %s in %+v", want, files)
	}
}

// Kubernetes writes a Secret's value where $(PW) stands in a later variable,
// command or args; ostset refuses, since the set would hold the value.
func TestSecretKeyRefInAReferenceIsRefused(t *testing.T) {
	for field, pod := range map[string]string{
		`spec.template.spec.containers[0].args[0]`: `containers:
- name: db
  image: x:1
  env: [{name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}]
  args: ["--password=$(PW)"]`,
		`spec.template.spec.containers[0].env[1].value`: `containers:
- name: db
  image: x:1
  env:
  - {name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}
  - {name: URL, value: "db://u:$(PW)@h"}`,
	} {
		_, err := parseWithManifests("k.yaml", []byte(secretManifest+sts(pod)))
		if err == nil || !strings.Contains(err.Error(), field+": $(PW) would write the value of a Secret") {
			t.Errorf("%s: error %v", field, err)
		}
	}
	// $$(PW) is the text $(PW), not a reference.
	if _, err := parseWithManifests("k.yaml", []byte(secretManifest+sts(`containers:
- name: db
  image: x:1
  env: [{name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}]
  args: ["--literal=$$(PW)"]`))); err != nil {
		t.Error(err)
	}
}

// The export writes the references, never the value, and no Secret object;
// imported again with the Secret, it is the same revision.
func TestExportWritesSecretKeyRef(t *testing.T) {
	src := secretManifest + sts(`initContainers:
- name: init
  image: x:1
  env: [{name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}]
containers:
- name: db
  image: x:1
  env:
  - {name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}
  - {name: MODE, valueFrom: {configMapKeyRef: {name: db-cfg, key: mode}}}`)
	sets, err := parseWithManifests("k.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := ExportKubernetes(sets[0], ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if strings.Contains(text, "s3cr3t-Value") || strings.Contains(text, "kind: Secret") || strings.Contains(text, "sha256:") {
		t.Errorf("the export holds the Secret:\n%s", text)
	}
	// as the manifest wrote them, in flow style
	for _, want := range []string{"{secretKeyRef: {name: db-auth, key: password}}", "{configMapKeyRef: {name: db-cfg, key: mode}}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the export lacks %q:\n%s", want, text)
		}
	}
	back, err := parseWithManifests("k.yaml", []byte(secretManifest+text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if h, want := back[0].RevisionSpec("sha256:1").Hash(), sets[0].RevisionSpec("sha256:1").Hash(); h != want {
		t.Errorf("revision %s after the round trip, want %s\n%s", h, want, text)
	}
}
