//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// volumeManifest is a StatefulSet of h's set, in the busybox-static image
// serving on 8080 (as a user may) with a tcpSocket readinessProbe, a Secret
// volume named volume at /etc/secret and a ConfigMap volume at /etc/conf;
// pod is added to the pod's spec.
func (h *harness) volumeManifest(volume, pod string) string {
	h.t.Helper()
	src := `apiVersion: apps/v1
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
      terminationGracePeriodSeconds: 1
` + pod + `      containers:
      - name: web
        image: ` + busyboxImage + `
        imagePullPolicy: Never
        command: ["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/tmp"]
        readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
        volumeMounts:
        - {name: "` + volume + `", mountPath: /etc/secret}
        - {name: conf, mountPath: /etc/conf}
      volumes:
      - name: "` + volume + `"
        secret: {secretName: creds, items: [{key: password, path: password}, {key: password, path: private/password, mode: 0400}]}
      - name: conf
        configMap: {name: conf}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: s3cr3t}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: conf}
data: {app.conf: "a=1"}
`
	path := filepath.Join(h.dir, "k.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// A pod volume whose name walks out of the state directory is refused at
// its line with exit 2, before anything is written: the directory it names
// keeps every file, and nothing is created.
func TestKubernetesVolumeNameCannotLeaveTheStateDirectory(t *testing.T) {
	t.Parallel()
	h := newKFHarness(t)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(victim, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"keep.txt", "deep/keep.txt"} {
		if err := os.WriteFile(filepath.Join(victim, f), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The name, joined to <state>/manifest-volumes/<set>, is the victim.
	name, err := filepath.Rel(filepath.Join(h.stateDir, "manifest-volumes", h.set), victim)
	if err != nil {
		t.Fatal(err)
	}
	r := h.ostset("up", "-f", h.volumeManifest(name, ""), "--wait=false")
	if r.code != 2 || !strings.Contains(r.stderr, "k.yaml:25: spec.template.spec.volumes[0].name: \""+name+"\" is not a DNS-1123 label") {
		t.Errorf("up: %s\nwant exit 2 and the volume's name at k.yaml:25", r)
	}
	var left []string
	_ = filepath.WalkDir(victim, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(victim, p)
			left = append(left, rel)
		}
		return err
	})
	if !slices.Equal(left, []string{"deep/keep.txt", "keep.txt"}) {
		t.Errorf("the victim directory holds %v; want its own two files, untouched", left)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("replicas created: %v", names)
	}
}

// A replica that runs as a user reads its Secret and ConfigMap files:
// Kubernetes' default mode 0644, an item's own mode, the pod's fsGroup
// owning them (and reading them, as the kubelet gives; the user reads an
// 0400 item through its group, runAsGroup here). They are copied into
// the container, not bind-mounted from the state directory, which stays
// private on the host.
func TestKubernetesSecretVolumeReadableByTheUser(t *testing.T) {
	t.Parallel()
	ensureBusyboxImage(t)
	h := newKFHarness(t)
	path := h.volumeManifest("secret", "      securityContext: {runAsUser: 1000, runAsGroup: 2000, fsGroup: 2000}\n")
	h.mustOstset("up", "-f", path, "--timeout", "90s")
	name := h.name(0)
	for file, want := range map[string]string{
		"/etc/secret/password":         "644 0 2000",
		"/etc/secret/private/password": "440 0 2000",
		"/etc/conf/app.conf":           "644 0 2000",
		"/etc/secret":                  "755 0 2000",
	} {
		if got := h.docker("exec", name, "/bin/busybox", "stat", "-c", "%a %u %g", file); got != want {
			t.Errorf("%s: mode, owner, group %q, want %q", file, got, want)
		}
	}
	for _, file := range []string{"/etc/secret/password", "/etc/secret/private/password"} {
		if got, err := h.tryDocker("exec", name, "/bin/busybox", "cat", file); err != nil || got != "s3cr3t" {
			t.Errorf("user 1000 reads %s: %q, %v; want s3cr3t", file, got, err)
		}
	}
	if mounts := h.docker("inspect", "--format", `{{range .Mounts}}{{.Type}} {{.Source}};{{end}}`, name); strings.Contains(mounts, "bind") {
		t.Errorf("bind mounts %q: the files are copied, nothing is mounted from this host", mounts)
	}
	host := filepath.Join(h.stateDir, "manifest-volumes", h.set, "secret", "password")
	if fi, err := os.Stat(host); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s on the host: %v, %v; want 0600 (the state directory is private)", host, fi.Mode().Perm(), err)
	}
	// A replica created again gets the files again.
	h.docker("rm", "-f", name)
	h.mustOstset("up", "-f", path, "--timeout", "90s")
	if got, err := h.tryDocker("exec", h.name(0), "/bin/busybox", "cat", "/etc/conf/app.conf"); err != nil || got != "a=1" {
		t.Errorf("after a recreate: %q, %v", got, err)
	}
}
