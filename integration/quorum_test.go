//go:build integration

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quorumSpec is a set of three whose replicas are ready only with a peer:
// each one's healthcheck looks up the next ordinal (0 → 1 → 2 → 0), which
// Docker's DNS answers only while that replica runs, as a quorum database
// (Galera, RabbitMQ) is ready only once it sees its peers. Docker does not
// restart its exited containers (restartPolicy "no").
const quorumSpec = `
name: {{SET}}
replicas: 3
network: {{NET}}
serviceName: svc-{{SET}}
podManagementPolicy: {{POLICY}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  restartPolicy: "no"
  healthcheck:
    test: ["CMD", "/web", "lookup", "{{if eq .Ordinal 0}}{{.Set}}-1{{else if eq .Ordinal 1}}{{.Set}}-2{{else}}{{.Set}}-0{{end}}"]
    interval: 500ms
    timeout: 1s
    retries: 1
volumeClaimTemplates:
  - name: data
    mountPath: /data
`

// Replicas of an OrderedReady set that all exited at once (a host's crash, an
// engine restart: here one docker kill of all three) are all brought back at
// once by the daemon, not one by one: in order, the lowest would wait for
// its peers to be ready and they for it, and the set would never converge.
func TestQfAllExitedReplicasOfAQuorumComeBack(t *testing.T) {
	t.Parallel()
	h := newHarnessPrefix(t, "qf")
	h.startDaemon(nil, "--resync", "10m")
	// A quorum is first formed in Parallel (in order the first replica would
	// never be ready alone), then run under OrderedReady, which changes no
	// revision.
	h.mustOstset("up", "-f", h.writeSpec(quorumSpec, imageV1, "{{POLICY}}", "Parallel"), "--wait=false")
	h.awaitReady(3)
	h.mustOstset("up", "-f", h.writeSpec(quorumSpec, imageV1, "{{POLICY}}", "OrderedReady"), "--wait=false")
	b, err := os.ReadFile(filepath.Join(h.stateDir, "sets", h.set+".json"))
	var st struct {
		Spec struct {
			PodManagementPolicy string `json:"podManagementPolicy"`
		} `json:"spec"`
	}
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if st.Spec.PodManagementPolicy != "OrderedReady" {
		t.Fatalf("the set is not OrderedReady now (%v):\n%s", err, b)
	}
	old := map[string]string{}
	for i := range 3 {
		old[h.name(i)] = h.inspect(h.name(i)).ID
	}
	h.docker("kill", h.name(0), h.name(1), h.name(2))
	for name, id := range old {
		h.awaitReplaced(name, id)
	}
	h.awaitReady(3)
	r := h.mustOstset("get", h.set)
	if strings.Contains(r.stdout, "exited") {
		t.Errorf("get after the set came back:\n%s", r)
	}
}
