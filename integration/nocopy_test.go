//go:build integration

package integration

import (
	"strings"
	"testing"
)

const nocopySpec = `
name: {{SET}}
replicas: 1
network: {{NET}}
terminationGracePeriodSeconds: 1
template:
  image: {{IMAGE}}
  command: ["sleep", "infinity"]
  healthcheck:
    test: ["NONE"]
volumeClaimTemplates:
  - name: copied
    mountPath: /etc/apt
  - name: empty
    mountPath: /etc/default
    nocopy: true
`

// A new claim's volume gets the image's files at its mount path, as Docker
// does, unless the claim says nocopy: then it starts empty, as a Kubernetes
// claim does (what an import gives).
func TestClaimNoCopyStartsEmpty(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(nocopySpec, "ostset-test/debian:bookworm"), "--timeout", "60s")
	if got := strings.TrimSpace(h.docker("exec", h.name(0), "ls", "-A", "/etc/apt")); got == "" {
		t.Errorf("/etc/apt (no nocopy) is empty: the image's files were not copied in")
	}
	if got := strings.TrimSpace(h.docker("exec", h.name(0), "ls", "-A", "/etc/default")); got != "" {
		t.Errorf("/etc/default (nocopy) holds %q, want nothing", got)
	}
}
