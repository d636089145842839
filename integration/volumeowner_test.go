//go:build integration

package integration

import (
	"archive/tar"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const ownedSpec = `
name: {{SET}}
replicas: 1
network: {{NET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  user: "999:999"
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    retries: 1
volumeClaimTemplates:
  - {name: data, mountPath: /data, owner: "999:999"}
  - {name: plain, mountPath: /plain}
`

// A replica that does not run as root can write to a claim with an owner, as
// a database running as its own user needs; without one, Docker's new volume
// belongs to root. Recreating the replica keeps the data and the owner.
func TestVolumeOwnerLetsANonRootReplicaWrite(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(ownedSpec, imageV1))
	name := h.name(0)
	h.docker("exec", name, "/web", "write", "/data/PG_VERSION", "16")
	if out, err := h.tryDocker("exec", name, "/web", "write", "/plain/PG_VERSION", "16"); err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("a claim without owner is writable by 999 (%v): %s", err, out)
	}
	if uid, gid := rootOwner(t, name, "/data"); uid != 999 || gid != 999 {
		t.Errorf("data-%s is owned by %d:%d, want 999:999", name, uid, gid)
	}

	h.mustOstset("recreate", name)
	if got := h.docker("exec", name, "/web", "cat", "/data/PG_VERSION"); got != "16" {
		t.Errorf("after recreate: %q", got)
	}
	h.docker("exec", name, "/web", "write", "/data/postmaster.pid", "1")
}

// rootOwner reads the owner of a directory in a container from docker cp's archive.
func rootOwner(t *testing.T, container, dir string) (uid, gid int) {
	t.Helper()
	out, err := exec.Command("docker", "cp", container+":"+dir, "-").Output()
	if err != nil {
		t.Fatalf("docker cp %s:%s: %v", container, dir, err)
	}
	hdr, err := tar.NewReader(bytes.NewReader(out)).Next()
	if err != nil {
		t.Fatal(err)
	}
	return hdr.Uid, hdr.Gid
}
