//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exportSpec uses what an export writes in translation: replica templates,
// a network and a healthcheck finer than a probe's seconds, a $ Kubernetes
// would expand, labels, resources and a claim.
const exportSpec = `
name: {{SET}}
replicas: 2
network: {{NET}}
serviceName: svc-{{SET}}
podManagementPolicy: Parallel
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  env:
    REPLICA_ID: "{{.Ordinal}}"
    GREETING: "hello from {{.Name}}.{{.Service}}"
    LITERAL: "$$(not-a-variable)"
  labels:
    tier: web
  resources: {memory: 64Mi}
  # The interval is finer than a probe's whole seconds. The timeout leaves
  # room for docker exec, which takes seconds on a loaded machine.
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 10s
    retries: 3
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

// A running set exported as Kubernetes manifests and applied again with
// ostset up is the same set: the revision is unchanged and no replica is
// replaced.
func TestExportRoundTripChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(exportSpec, imageV1))
	ids := map[string]string{}
	for _, name := range []string{h.name(0), h.name(1)} {
		ids[name] = h.docker("inspect", "-f", "{{.Id}}", name)
	}
	var before struct{ UpdateRevision string }
	h.statusJSON(&before)

	exported := h.mustOstset("export", h.set)
	if !strings.Contains(exported.stdout, "kind: StatefulSet") || !strings.Contains(exported.stdout, "kind: Service") {
		t.Fatalf("export: %s", exported)
	}
	if !strings.Contains(exported.stderr, h.set+": network: ") {
		t.Errorf("the network is not reported as something a cluster cannot do: %s", exported)
	}
	manifest := filepath.Join(h.dir, "k8s.yaml")
	if err := os.WriteFile(manifest, []byte(exported.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.mustOstset("up", "-f", manifest)
	if want := h.set + ": revision " + before.UpdateRevision + " unchanged"; !strings.Contains(r.stdout, want) {
		t.Errorf("up -f of the export: want %q in %s", want, r)
	}
	var after struct{ UpdateRevision string }
	h.statusJSON(&after)
	if after.UpdateRevision != before.UpdateRevision {
		t.Errorf("update revision %s after the round trip, was %s", after.UpdateRevision, before.UpdateRevision)
	}
	for name, id := range ids {
		if got := h.docker("inspect", "-f", "{{.Id}}", name); got != id {
			t.Errorf("%s was replaced (%s, was %s)", name, got, id)
		}
	}
	// The replicas still get their own values.
	env := strings.Split(h.docker("inspect", "-f", "{{range .Config.Env}}{{println .}}{{end}}", h.name(1)), "\n")
	for _, want := range []string{"REPLICA_ID=1", "GREETING=hello from " + h.name(1) + ".svc-" + h.set, "LITERAL=$(not-a-variable)"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s lacks %s: %s", h.name(1), want, env)
		}
	}
}
