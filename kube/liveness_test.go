package kube

import (
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/kube/kubeprobe"
)

const probedManifest = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          ports: [{name: http, containerPort: 8080}]
          livenessProbe:
            httpGet: {path: /health, port: http}
            periodSeconds: 3
          startupProbe:
            tcpSocket: {port: 8080}
            failureThreshold: 30
            periodSeconds: 1
`

// A livenessProbe and a startupProbe are applied (mapped onto the set's
// liveness and startup, with no note), and an export writes them back as
// the manifest had them.
func TestLivenessAndStartupProbesImportAndExport(t *testing.T) {
	sets, err := parseWithManifests("web.yaml", []byte(probedManifest))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := sets[0].Template
	if l := tmpl.Liveness; l == nil || !slices.Equal(l.Test, kubeprobe.Test(config.ProbeHTTP, "http://127.0.0.1:8080/health")) ||
		l.Interval != config.Duration(3e9) || l.Retries != 3 || l.Timeout != config.Duration(1e9) {
		t.Errorf("liveness %+v", l)
	}
	if s := tmpl.Startup; s == nil || !slices.Equal(s.Test, kubeprobe.Test(config.ProbeTCP, "127.0.0.1:8080")) || s.Retries != 30 {
		t.Errorf("startup %+v", s)
	}
	out, _, err := ExportKubernetes(sets[0], ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"livenessProbe:\n            httpGet: {path: /health, port: http}\n            periodSeconds: 3\n",
		"startupProbe:\n            tcpSocket: {port: 8080}\n            failureThreshold: 30\n            periodSeconds: 1\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("export lacks\n%s\nin\n%s", want, out)
		}
	}
	back, err := parseWithManifests("web-k8s.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back[0].RevisionSpec("sha256:1").Hash(), sets[0].RevisionSpec("sha256:1").Hash(); got != want {
		t.Errorf("revision %s after the round trip, want %s", got, want)
	}
}
