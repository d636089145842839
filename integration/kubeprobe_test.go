//go:build integration

package integration

import (
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// busyboxImage is a busybox-static image with the applets sh, nc and httpd,
// whose nc has no -z (Debian's build): the image a shell-script probe failed
// in. It is made once from the machine's /bin/busybox (Debian's
// busybox-static package) with docker import; the test is skipped without it.
const busyboxImage = "kf-busybox:static"

var busyboxMu sync.Mutex

func ensureBusyboxImage(t *testing.T) {
	t.Helper()
	busyboxMu.Lock() // tests run in parallel: one makes it, the others wait and find it
	defer busyboxMu.Unlock()
	if exec.Command("docker", "image", "inspect", busyboxImage).Run() == nil {
		return
	}
	f, err := elf.Open("/bin/busybox")
	if err != nil {
		lacking(t, "no busybox-static on this machine to make %s: %v", busyboxImage, err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			lacking(t, "/bin/busybox is not static (install busybox-static): cannot make %s", busyboxImage)
		}
	}
	_ = f.Close()
	root := t.TempDir()
	for _, d := range []string{"bin", "www", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "busybox"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, applet := range []string{"sh", "nc", "httpd", "sleep"} {
		if err := os.Symlink("busybox", filepath.Join(root, "bin", applet)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", "tar -C "+root+" -c . | docker import --change 'ENV PATH=/bin' - "+busyboxImage)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker import %s: %v\n%s", busyboxImage, err, out)
	}
}

// newKFHarness is a harness whose set, containers, volumes and network are
// named kf<hex>.
func newKFHarness(t *testing.T) *harness {
	h := newHarness(t)
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	h.set = "kf" + hex.EncodeToString(b)
	h.network = h.set + "-net"
	return h
}

// The tutorial's nginx StatefulSet with a tcpSocket readinessProbe on a
// named port becomes ready in a busybox-static image whose nc has no -z, and
// in a FROM scratch image with no shell at all: the probe is ostset's own
// static program, copied into each replica before it starts.
func TestKubernetesTCPProbeInAnyImage(t *testing.T) {
	t.Parallel()
	ensureBusyboxImage(t)
	for _, c := range []struct {
		name, image, run string
	}{
		{"busybox", busyboxImage, "        command: [\"/bin/busybox\", \"httpd\", \"-f\", \"-p\", \"80\", \"-h\", \"/usr/share/nginx/html\"]\n"},
		{"scratch", imageV1, "        env: [{name: PORT, value: \"80\"}]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newKFHarness(t)
			svc := "svc-" + h.set
			path := h.kubeManifest("web.yaml",
				"  name: nginx\n", "  name: "+svc+"\n",
				"serviceName: \"nginx\"", "serviceName: \""+svc+"\"",
				"metadata:\n  name: web\n", "metadata:\n  name: "+h.set+"\n  annotations:\n    ostset.io/set-fields: '{\"network\":\""+h.network+"\"}'\n",
				"replicas: 3", "replicas: 2",
				"minReadySeconds: 5", "minReadySeconds: 0",
				"terminationGracePeriodSeconds: 10", "terminationGracePeriodSeconds: 1",
				"        image: registry.k8s.io/nginx-slim:0.24\n", "        image: "+c.image+"\n        imagePullPolicy: Never\n"+c.run,
				"httpGet:\n            path: /\n            port: web\n          periodSeconds: 2",
				"tcpSocket:\n            port: web\n          periodSeconds: 1",
			)
			h.mustOstset("up", "-f", path, "--timeout", "60s")
			for ord := 0; ord < 2; ord++ {
				name := h.name(ord)
				h.awaitHealth(name, "healthy")
				test := h.docker("inspect", "--format", "{{json .Config.Healthcheck.Test}}", name)
				if want := `["CMD","/.ostset/ostset","probe","tcp","127.0.0.1:80"]`; test != want {
					t.Errorf("%s: healthcheck %s, want %s", name, test, want)
				}
				// The probe is copied into the container, not mounted from this host.
				if mounts := h.docker("inspect", "--format", `{{range .Mounts}}{{.Type}} {{.Source}};{{end}}`, name); strings.Contains(mounts, "bind") {
					t.Errorf("%s: bind mounts %q: the probe needs none", name, mounts)
				}
			}
			// The export of the running set gives back the manifest's
			// selector, names and probe, not ostset's own, as written.
			export := h.mustOstset("export", h.set).stdout
			flat := strings.Join(strings.Fields(export), " ")
			for _, want := range []string{
				"selector: matchLabels: app: nginx template:",
				"- name: nginx image: " + c.image,
				"- containerPort: 80 name: web",
				"tcpSocket: port: web",
				"ports: - port: 80 name: web",
			} {
				if !strings.Contains(flat, want) {
					t.Errorf("export lacks %q:\n%s", want, export)
				}
			}
			// A probe of a port nobody listens on fails: ready means the port answers.
			out, err := h.tryDocker("exec", h.name(0), "/.ostset/ostset", "probe", "tcp", "127.0.0.1:81")
			if err == nil || !strings.Contains(out, "connection refused") {
				t.Errorf("probe of a closed port: %v %q", err, out)
			}
		})
	}
}
