//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kubeManifest reads a fixture of kube/testdata/kubernetes and makes it this
// test's: the replacements are applied in order, then the StatefulSet gets the
// harness's network through the export annotation.
func (h *harness) kubeManifest(fixture string, replacements ...string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "kube", "testdata", "kubernetes", fixture))
	if err != nil {
		h.t.Fatal(err)
	}
	text := strings.NewReplacer(replacements...).Replace(string(b))
	path := filepath.Join(h.dir, fixture)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// The nginx StatefulSet of the Kubernetes tutorial, its image swapped for the
// test image, runs as three ready replicas, each with its own volume from the
// claim template at the mount path, its hostname, and its DNS name in the
// headless Service's domain (a network alias: Docker has no search domain).
func TestKubernetesWebManifest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	svc := "svc-" + h.set
	path := h.kubeManifest("web.yaml",
		"  name: nginx\n", "  name: "+svc+"\n",
		"serviceName: \"nginx\"", "serviceName: \""+svc+"\"",
		"metadata:\n  name: web\n", "metadata:\n  name: "+h.set+"\n  annotations:\n    ostset.io/set-fields: '{\"network\":\""+h.network+"\"}'\n",
		"minReadySeconds: 5", "minReadySeconds: 0",
		"terminationGracePeriodSeconds: 10", "terminationGracePeriodSeconds: 2",
		"image: registry.k8s.io/nginx-slim:0.24", "image: "+imageV1,
		"httpGet:\n            path: /\n            port: web\n          periodSeconds: 2",
		"exec:\n            command: [\"/web\", \"health\"]\n          periodSeconds: 1\n          timeoutSeconds: 10",
	)
	h.mustOstset("up", "-f", path)
	for ord := 0; ord < 3; ord++ {
		name := h.name(ord)
		info := h.inspect(name)
		if info.State.Status != "running" || info.State.Health == nil {
			t.Errorf("%s: state %+v", name, info.State)
		}
		if why := h.notReadyReason(name); why != "" {
			t.Errorf("up returned with %s not ready: %s", name, why)
		}
		if info.Config.Hostname != name {
			t.Errorf("%s: hostname %q", name, info.Config.Hostname)
		}
		if n, ok := info.NetworkSettings.Networks[h.network]; !ok || !slices.Contains(n.Aliases, name+"."+svc) {
			t.Errorf("%s: networks %+v, want alias %s.%s on %s", name, info.NetworkSettings.Networks, name, svc, h.network)
		}
		var vol string
		for _, m := range info.Mounts {
			if m.Destination == "/usr/share/nginx/html" {
				vol = m.Name
			}
		}
		if vol != "www-"+name {
			t.Errorf("%s: volume at /usr/share/nginx/html %q, want www-%s (mounts %+v)", name, vol, name, info.Mounts)
		}
	}
}

// The ZooKeeper tutorial's manifest runs as published (image aside), without
// --lenient: what only a cluster applies (podAntiAffinity, the
// PodDisruptionBudget) is a note, listed once with its line, and its
// livenessProbe, which ostset runs, is none; --strict refuses it, naming the line of the affinity. Each replica has
// its name and ordinal from the fieldRefs, its resources.requests as Docker's
// reservations, and the names it has in a cluster: the client Service, the
// cluster-local names, hostname -d.
func TestKubernetesZooKeeperManifest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	hs := "hs-" + h.set
	path := h.kubeManifest("zookeeper.yaml",
		"name: zk-hs\n", "name: "+hs+"\n",
		"serviceName: zk-hs", "serviceName: "+hs,
		"name: zk-cs\n", "name: cs-"+h.set+"\n",
		"name: zk-pdb\n", "name: pdb-"+h.set+"\n",
		"metadata:\n  name: zk\n", "metadata:\n  name: "+h.set+"\n  annotations:\n    ostset.io/set-fields: '{\"network\":\""+h.network+"\"}'\n",
		"imagePullPolicy: Always", "imagePullPolicy: Never",
		"        - name: ZK_SERVERS\n",
		"        - name: ORDINAL\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.labels['apps.kubernetes.io/pod-index']\n        - name: ZK_SERVERS\n",
		"        - sh\n        - -c\n        - \"start-zookeeper",
		"        - bash\n        - -c\n        - \"trap 'exit 0' TERM; touch /tmp/ready; while true; do sleep 0.2; done\"\n        - \"start-zookeeper",
		"\"zookeeper-ready 2181\"\n          initialDelaySeconds: 10\n          timeoutSeconds: 5",
		"\"test -f /tmp/ready\"\n          periodSeconds: 1\n          timeoutSeconds: 10",
		"      securityContext:\n", "      terminationGracePeriodSeconds: 2\n      securityContext:\n",
	)
	strict := h.ostset("up", "-f", path, "--strict")
	if strict.code != 2 || !strings.Contains(strict.stderr, path+":") || !strings.Contains(strict.stderr, "affinity") {
		t.Fatalf("with --strict: want exit 2 naming %s:LINE and affinity: %s", path, strict)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Fatalf("a refused manifest created %v", names)
	}

	r := h.mustOstset("up", "-f", path)
	noted := map[string]int{}
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		for _, what := range []string{"podAntiAffinity", "livenessProbe", "PodDisruptionBudget"} {
			if strings.Contains(line, path+":") && strings.Contains(line, what) {
				noted[what]++
			}
		}
	}
	if noted["podAntiAffinity"] != 1 || noted["livenessProbe"] != 0 || noted["PodDisruptionBudget"] != 1 {
		t.Errorf("notes naming %s: %v, want affinity and budget once, the applied livenessProbe never: %s", path, noted, r)
	}
	for ord := 0; ord < 3; ord++ {
		name := h.name(ord)
		h.awaitHealth(name, "healthy")
		env := h.docker("exec", name, "printenv", "POD_NAME", "ORDINAL", "ZK_SERVERS")
		if want := name + "\n" + strconv.Itoa(ord) + "\n3"; env != want {
			t.Errorf("%s: env %q, want %q", name, env, want)
		}
		if got := h.docker("inspect", "-f", "{{.HostConfig.MemoryReservation}} {{.HostConfig.CpuShares}}", name); got != "1073741824 512" {
			t.Errorf("%s: memory reservation and CPU shares %q, want 1073741824 512 (requests 1Gi, 0.5)", name, got)
		}
	}
	// Names as in the cluster: the client Service, a peer's cluster-local
	// name, and the pod's domain.
	from := h.name(2)
	for _, host := range []string{"cs-" + h.set, "cs-" + h.set + ".default.svc.cluster.local", h.name(0) + "." + hs + ".default.svc.cluster.local", hs + ".default.svc.cluster.local"} {
		if out := h.docker("exec", from, "getent", "hosts", host); out == "" {
			t.Errorf("%s does not resolve %s", from, host)
		}
	}
	if got, want := h.docker("exec", from, "hostname", "-d"), hs+".default.svc.cluster.local"; got != want {
		t.Errorf("hostname -d in %s: %q, want %q", from, got, want)
	}
	if got, want := h.docker("exec", from, "hostname", "-f"), from+"."+hs+".default.svc.cluster.local"; got != want {
		t.Errorf("hostname -f in %s: %q, want %q", from, got, want)
	}
	// What the set keeps in the state directory comes back out as written.
	export := h.mustOstset("export", h.set).stdout
	for _, want := range []string{"kind: PodDisruptionBudget", "name: pdb-" + h.set, "name: cs-" + h.set, "podAntiAffinity:", "livenessProbe:", `memory: "1Gi"`} {
		if !strings.Contains(export, want) {
			t.Errorf("export lacks %q:\n%s", want, export)
		}
	}
	// in the manifest's order: the two Services, the budget, the StatefulSet
	manifest, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(text string) []string { return regexp.MustCompile(`(?m)^kind: \w+`).FindAllString(text, -1) }
	if got, want := kinds(export), kinds(string(manifest)); !slices.Equal(got, want) {
		t.Errorf("objects %v, want the manifest's %v:\n%s", got, want, export)
	}
}
