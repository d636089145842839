package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const secretSet = `apiVersion: v1
kind: Secret
metadata: {name: db-auth}
stringData: {password: s3cr3t-Value}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 1
  template:
    spec:
      containers:
      - name: web
        image: x
        env:
        - {name: PW, valueFrom: {secretKeyRef: {name: db-auth, key: password}}}
`

// A Secret's value reaches the replica and nothing else: describe says where
// it comes from as kubectl does, export writes the secretKeyRef, and no
// output or event holds the value.
func TestSecretKeyRefValueStaysOutOfOutputs(t *testing.T) {
	f := newFakeCLI(t)
	file := filepath.Join(t.TempDir(), "k.yaml")
	if err := os.WriteFile(file, []byte(secretSet), 0o600); err != nil {
		t.Fatal(err)
	}
	var all []string
	run := func(args ...string) string {
		out, errs, err := f.run(context.Background(), args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errs)
		}
		all = append(all, out, errs)
		return out
	}
	run("up", "-f", file, "--progress", "plain")
	if len(f.rt.Created) != 1 || !slices.Contains(f.rt.Created[0].Env, "PW=s3cr3t-Value") {
		t.Fatalf("created %+v, want PW's value in the replica's env", f.rt.Created)
	}
	if d := run("describe", "web"); !strings.Contains(d, "PW: <set to the key 'password' in secret 'db-auth'>") {
		t.Errorf("describe:\n%s", d)
	}
	if e := run("export", "web"); !strings.Contains(e, "secretKeyRef:") || strings.Contains(e, "kind: Secret") {
		t.Errorf("export:\n%s", e)
	}
	run("export", "web", "-o", "yaml")
	run("export", "web", "-o", "json")
	run("events", "web")
	run("get", "-o", "json")
	for _, out := range all {
		if strings.Contains(out, "s3cr3t-Value") {
			t.Errorf("an output holds the Secret's value:\n%s", out)
		}
	}
}

// A set file with references whose values this state directory does not
// keep is refused before anything is done (exit 2), naming what is missing.
func TestEnvRefsWithoutValuesAreRefused(t *testing.T) {
	f := newFakeCLI(t)
	file := filepath.Join(t.TempDir(), "set.yaml")
	src := "name: web\ntemplate:\n  image: x\n  envRefs:\n    PW: {kind: Secret, name: db-auth, key: password, digest: d}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.run(context.Background(), "up", "-f", file)
	if err == nil || exitCode(err) != exitInvalid || !strings.Contains(err.Error(), file+":4: template.envRefs: no value kept for PW (the key \"password\" of secret \"db-auth\")") {
		t.Errorf("up: %v", err)
	}
	if len(f.rt.Created) != 0 {
		t.Errorf("%d replicas created", len(f.rt.Created))
	}
}

// convert only writes manifests: references whose values this state
// directory does not keep are written as the secretKeyRef they are.
func TestConvertKeepsEnvRefsWithoutValues(t *testing.T) {
	f := newFakeCLI(t)
	file := filepath.Join(t.TempDir(), "set.yaml")
	src := "name: web\ntemplate:\n  image: x\n  envRefs:\n    PW: {kind: Secret, name: db-auth, key: password, digest: d}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := f.run(context.Background(), "convert", "-f", file)
	if err != nil || !strings.Contains(out, "secretKeyRef:") || !strings.Contains(out, "name: db-auth") {
		t.Errorf("convert: %v\n%s", err, out)
	}
}
