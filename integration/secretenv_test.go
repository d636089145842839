//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretEnvManifest is a Secret and a StatefulSet whose variable PW is the
// Secret's key password.
func (h *harness) secretEnvManifest(value string) string {
	h.t.Helper()
	src := `apiVersion: v1
kind: Secret
metadata: {name: auth-` + h.set + `}
stringData: {password: ` + value + `}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ` + h.set + `
  annotations:
    ostset.io/set-fields: '{"network":"` + h.network + `"}'
spec:
  serviceName: svc-` + h.set + `
  replicas: 1
  selector: {matchLabels: {app: ` + h.set + `}}
  template:
    metadata: {labels: {app: ` + h.set + `}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: web
        image: ` + imageV1 + `
        env:
        - name: PW
          valueFrom: {secretKeyRef: {name: auth-` + h.set + `, key: password}}
        readinessProbe:
          exec: {command: ["/web", "health"]}
          periodSeconds: 1
`
	path := filepath.Join(h.dir, "secret.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// A secretKeyRef's value reaches the replica's environment and nothing that
// ostset shows: not up's output, describe (which says where the value comes
// from, as kubectl does), export (which writes the secretKeyRef and no
// Secret), events, or the container's labels. A new value rolls the set.
func TestSecretKeyRefValueOnlyInTheReplica(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const value, newValue = "Xy7-secret-value", "Zq9-other-value"
	var outputs []string
	run := func(args ...string) string {
		r := h.mustOstset(args...)
		outputs = append(outputs, strings.Join(args, " ")+":\n"+r.stdout+r.stderr)
		return r.stdout
	}
	run("up", "-f", h.secretEnvManifest(value))
	if env := h.mustOstset("exec", h.set, "--", "/web", "cat", "/proc/self/environ"); !strings.Contains(env.stdout, "PW="+value+"\x00") {
		t.Errorf("the replica's environment lacks PW: %q", env.stdout)
	}
	if d := run("describe", h.set); !strings.Contains(d, "PW: <set to the key 'password' in secret 'auth-"+h.set+"'>") {
		t.Errorf("describe:\n%s", d)
	}
	if e := run("export", h.set); !strings.Contains(e, "secretKeyRef:") || strings.Contains(e, "kind: Secret") {
		t.Errorf("export:\n%s", e)
	}
	run("events", h.set)
	run("get", h.set, "-o", "json")
	before := h.inspect(h.name(0))
	outputs = append(outputs, strings.Join(h.dockerLines("inspect", "--format", "{{json .Config.Labels}}", h.name(0)), ""))

	run("up", "-f", h.secretEnvManifest(newValue))
	if env := h.mustOstset("exec", h.set, "--", "/web", "cat", "/proc/self/environ"); !strings.Contains(env.stdout, "PW="+newValue+"\x00") {
		t.Errorf("after the Secret changed, the replica's environment lacks the new PW: %q", env.stdout)
	}
	if after := h.inspect(h.name(0)); after.ID == before.ID {
		t.Error("a new value of the Secret did not roll the set")
	}
	run("events", h.set)
	run("rollout", "history", h.set)
	for _, out := range outputs {
		if strings.Contains(out, value) || strings.Contains(out, newValue) {
			t.Errorf("an output holds the Secret's value:\n%s", out)
		}
	}
}
