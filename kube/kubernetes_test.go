package kube

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the Kubernetes import tests")

// importFixture loads testdata/kubernetes/<name>.yaml leniently and returns
// the sets, the config files and every warning.
func importFixture(t *testing.T, lenient bool, names ...string) ([]config.Set, []config.ConfigFile, []string, error) {
	t.Helper()
	var warnings []string
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join("testdata", "kubernetes", n+".yaml"))
	}
	l := config.Loader{Manifests: Manifests{}, Lenient: lenient, Warn: func(m string) { warnings = append(warnings, m) }, ConfigDir: "/state/manifest-volumes"}
	sets, files, err := l.LoadFiles(paths)
	return sets, files, warnings, err
}

// TestKubernetesFixtures compares the set each tutorial-shaped manifest
// becomes, and the exact list of what it reports, with its golden file; and
// checks that without --lenient every field that cannot be mapped is an error.
func TestKubernetesFixtures(t *testing.T) {
	for _, name := range []string{"web", "zookeeper", "cassandra", "mysql"} {
		t.Run(name, func(t *testing.T) {
			sets, files, warnings, err := importFixture(t, true, name)
			if err != nil {
				t.Fatalf("lenient import: %v", err)
			}
			for i := range sets {
				sets[i].Written = nil
				if k := sets[i].Kubernetes; k != nil {
					k.Written = nil // the manifest itself, as written
				}
			}
			var b strings.Builder
			js, _ := json.MarshalIndent(sets, "", "  ")
			b.Write(js)
			b.WriteString("\n# config files\n")
			for _, f := range files {
				fmt.Fprintf(&b, "%s %o\n", filepath.Join(f.Dir, f.Name), f.Mode)
			}
			b.WriteString("# reported\n")
			var unmapped []string
			for _, w := range warnings {
				b.WriteString(w + "\n")
				if line, ok := strings.CutSuffix(w, " (ignored: --lenient)"); ok {
					unmapped = append(unmapped, line+" (--lenient to go on without it)")
				}
			}
			golden := filepath.Join("testdata", "kubernetes", name+".golden")
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("import differs from %s (go test ./kube -run TestKubernetesFixtures -update):\n%s", golden, b.String())
			}

			_, _, _, err = importFixture(t, false, name)
			switch {
			case len(unmapped) == 0 && err != nil:
				t.Errorf("strict import: %v, want no error", err)
			case len(unmapped) > 0 && (err == nil || err.Error() != strings.Join(unmapped, "\n")):
				t.Errorf("strict import error:\n%v\nwant:\n%s", err, strings.Join(unmapped, "\n"))
			}
		})
	}
}

// TestKubernetesRoundTrip: a set exported as a StatefulSet and headless
// Service imports back to a set with the same revision hash, and with the
// same replica count and policies.
func TestKubernetesRoundTrip(t *testing.T) {
	for name, src := range map[string]string{
		"minimal": "name: web\ntemplate: {image: nginx}\n",
		"latest":  "name: web\ntemplate: {image: nginx, imagePullPolicy: IfNotPresent}\n",
		"full": `name: db
replicas: 3
serviceName: dbs
podManagementPolicy: Parallel
minReadySeconds: 4
revisionHistoryLimit: 3
ordinals: {start: 2}
persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}
terminationGracePeriodSeconds: 30
updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1, maxUnavailable: 50%}}
template:
  image: redis:7
  imagePullPolicy: Never
  command: [sh, -c, 'echo $$HOME {{.Name}} $(X)']
  args: ["--id={{.Ordinal}}", "--peer={{.Set}}-0.{{.Service}}", "--all={{range .Peers}}{{.Host}},{{end}}"]
  env: {A: "1", ORD: "{{.Ordinal}}", NAME: "{{.Name}}", MIX: "x-{{.Ordinal}}-$(A)", DOLLAR: "$$x"}
  workingDir: /data
  user: "1000:1000"
  labels: {tier: db}
  ports: [{containerPort: 6379}, {containerPort: 53, protocol: udp, hostPort: 5300}]
  healthcheck: {test: [CMD-SHELL, "redis-cli -p 6379 ping"], interval: 2s, timeout: 1500ms, retries: 5, startPeriod: 1s}
  resources: {cpus: "0.5", memory: 256Mi}
  tmpfs: [/run, "/cache:size=64m"]
  capAdd: [NET_ADMIN]
  stopSignal: SIGINT
  volumeMounts: [{source: ./conf, target: /conf, readOnly: true}]
  initContainers:
    - {name: init, image: busybox, command: [sh, -c, 'echo {{.Ordinal}} > /data/id'], env: {B: "2"}}
volumeClaimTemplates:
  - {name: data, mountPath: /data, owner: "1000:1000"}
  - {name: logs, mountPath: /logs}
`,
	} {
		t.Run(name, func(t *testing.T) {
			sets, err := parseWithManifests("set.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			want := sets[0]
			manifest, _, err := ExportKubernetes(want, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			got, err := config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}.Parse("export.yaml", manifest)
			if err != nil {
				t.Fatalf("import of the export: %v\n%s", err, manifest)
			}
			if len(got) != 1 {
				t.Fatalf("import gave %d sets", len(got))
			}
			if g, w := got[0].RevisionSpec("").Hash(), want.RevisionSpec("").Hash(); g != w {
				gj, _ := json.MarshalIndent(got[0].RevisionSpec(""), "", " ")
				wj, _ := json.MarshalIndent(want.RevisionSpec(""), "", " ")
				t.Errorf("revision %s, want %s\ngot  %s\nwant %s\nmanifest:\n%s", g, w, gj, wj, manifest)
			}
			g, w := got[0], want
			g.Source, w.Source, g.Written, w.Written = "", "", nil, nil
			// The import keeps the export, a manifest like any other, as written.
			g.Kubernetes = nil
			// IfNotPresent is the default, written or not (not hashed either).
			g.Template.ImagePullPolicy, w.Template.ImagePullPolicy = g.Template.PullPolicy(), w.Template.PullPolicy()
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if string(gj) != string(wj) {
				t.Errorf("set differs:\ngot  %s\nwant %s", gj, wj)
			}
		})
	}
}

// sts is a StatefulSet manifest named web around the pod spec lines given
// (indented as under spec.template.spec).
func sts(pod string) string {
	return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  template:
    spec:
` + indent(pod, "      ")
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestKubernetesMapping(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		check func(t *testing.T, s config.Set)
	}{{
		name: "env refs and fieldRefs",
		src: sts(`containers:
- name: c
  image: x:1
  env:
  - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
  - {name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
  - {name: IDX, valueFrom: {fieldRef: {fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}}
  - {name: URL, value: "http://$(POD).web:80/$(LATER)/$$(POD)/{{x}}"}
  - {name: LATER, value: "l"}
  command: [sh, -c, "echo $(IDX) $(URL) $(NOPE) $$HOME {$(IDX)}"]
  args: ["$(LATER)"]`),
		check: func(t *testing.T, s config.Set) {
			want := map[string]string{"POD": "{{.Name}}", "NS": "default", "IDX": "{{.Ordinal}}", "LATER": "l",
				"URL": `http://{{.Name}}.web:80/$(LATER)/$(POD)/{{"{{"}}x}}`}
			if !mapsEqual(s.Template.Env, want) {
				t.Errorf("env = %v, want %v", s.Template.Env, want)
			}
			wantCmd := `echo {{.Ordinal}} http://{{.Name}}.web:80/$(LATER)/$(POD)/{{"{{"}}x}} $(NOPE) $HOME {{"{"}}{{.Ordinal}}}`
			if s.Template.Command[2] != wantCmd || s.Template.Args[0] != "l" {
				t.Errorf("command = %q args = %q, want %q", s.Template.Command[2], s.Template.Args, wantCmd)
			}
			out, err := config.Expand(s.Template, s.ReplicaVars("web", 1))
			if err != nil || out.Command[2] != "echo 1 http://web-1.web:80/$(LATER)/$(POD)/{{x}} $(NOPE) $HOME {1}" {
				t.Errorf("expanded command = %q (%v)", out.Command, err)
			}
		},
	}, {
		name: "tcp and http probes with defaults",
		src: sts(`containers:
- name: c
  image: x:1
  ports: [{name: http, containerPort: 8080}]
  readinessProbe: {httpGet: {path: /healthz, port: http}}
initContainers: []`),
		check: func(t *testing.T, s config.Set) {
			h := s.Template.Healthcheck
			// ostset's own probe, copied into the container: nothing from the image.
			if h == nil || !slices.Equal(h.Test, []string{"CMD", config.ProbePath, "probe", "http", "http://127.0.0.1:8080/healthz"}) {
				t.Fatalf("healthcheck = %+v", h)
			}
			if h.Interval != config.Duration(10e9) || h.Timeout != config.Duration(1e9) || h.Retries != 3 || h.StartPeriod != 0 {
				t.Errorf("timing = %+v, want Kubernetes' defaults 10s/1s/3/0", h)
			}
		},
	}, {
		name: "tcp probe and limits",
		src: sts(`containers:
- name: c
  image: x:1
  resources: {limits: {cpu: 250m, memory: 500M}}
  securityContext: {runAsUser: 10, runAsGroup: 20}
  readinessProbe: {tcpSocket: {port: 5432}, periodSeconds: 3, timeoutSeconds: 2, failureThreshold: 4, initialDelaySeconds: 7}`),
		check: func(t *testing.T, s config.Set) {
			h := s.Template.Healthcheck
			if h == nil || !slices.Equal(h.Test, []string{"CMD", config.ProbePath, "probe", "tcp", "127.0.0.1:5432"}) || h.Interval != config.Duration(3e9) || h.Timeout != config.Duration(2e9) || h.Retries != 4 || h.StartPeriod != config.Duration(7e9) {
				t.Errorf("healthcheck = %+v", h)
			}
			if s.Template.Resources != (config.Resources{CPUs: "0.25", Memory: "500000000"}) || s.Template.User != "10:20" {
				t.Errorf("resources = %+v user = %q", s.Template.Resources, s.Template.User)
			}
		},
	}, {
		name: "emptyDir and secret volumes",
		src: sts(`containers:
- name: c
  image: x:1
  volumeMounts:
  - {name: scratch, mountPath: /scratch}
  - {name: creds, mountPath: /etc/creds}
volumes:
- {name: scratch, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
- {name: creds, secret: {secretName: creds, defaultMode: 0400, items: [{key: pw, path: sub/password}]}}`) + `---
apiVersion: v1
kind: Secret
metadata: {name: creds}
data: {pw: czNjcjN0}
`,
		check: func(t *testing.T, s config.Set) {
			if !slices.Equal(s.Template.Tmpfs, []string{"/scratch:size=67108864"}) {
				t.Errorf("tmpfs = %q", s.Template.Tmpfs)
			}
			want := []config.VolumeMount{{Source: "/state/manifest-volumes/web/creds", Target: "/etc/creds", ReadOnly: true}}
			if !slices.Equal(s.Template.VolumeMounts, want) {
				t.Errorf("volumeMounts = %+v, want %+v", s.Template.VolumeMounts, want)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sets, files, err := parseWithFiles(config.Loader{ConfigDir: "/state/manifest-volumes"}, "k.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, sets[0])
			if c.name == "emptyDir and secret volumes" {
				want := []config.ConfigFile{{Dir: "/state/manifest-volumes/web/creds", Name: "sub/password", Data: []byte("s3cr3t"), Mode: 0o400}}
				if len(files) != 1 || files[0].Name != want[0].Name || string(files[0].Data) != "s3cr3t" || files[0].Mode != 0o400 || files[0].Dir != want[0].Dir {
					t.Errorf("files = %+v, want %+v", files, want)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestKubernetesErrors: every problem names its file:line and field path,
// and unmappable fields are errors without Lenient.
func TestKubernetesErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{{
		name: "statefulset without a spec, beside a set",
		src:  "name: web\ntemplate: {image: x}\n---\n# k8s\napiVersion: apps/v1\nkind: StatefulSet\n",
		want: `k.yaml:5: spec: a StatefulSet needs a spec`,
	}, {
		name: "unknown field and sidecar",
		src: sts(`hostNetwork: true
containers:
- {name: a, image: x:1, stdin: true}
- {name: b, image: y:1}`),
		want: `k.yaml:9: spec.template.spec.hostNetwork: not supported by ostset (--lenient to go on without it)
k.yaml:11: spec.template.spec.containers[0].stdin: not supported by ostset (--lenient to go on without it)
k.yaml:12: spec.template.spec.containers[1]: container "b": ostset runs one container per replica (the first); a sidecar is not supported (--lenient to go on without it)`,
	}, {
		name: "missing configmap",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: c, mountPath: /c}]}
volumes:
- {name: c, configMap: {name: nowhere}}`),
		want: `k.yaml:12: spec.template.spec.volumes[0].configMap: ConfigMap "nowhere" is not in these files (--lenient to go on without it)`,
	}, {
		name: "hostPath",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: h, mountPath: /h}]}
volumes:
- {name: h, hostPath: {path: /}}`),
		want: `k.yaml:12: spec.template.spec.volumes[0]: volume "h": a hostPath volume is not supported (emptyDir, configMap, secret and volumeClaimTemplates are) (--lenient to go on without it)`,
	}, {
		name: "a volume name that walks out of the state directory",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: ../../../../srv/victim, mountPath: /s}]}
volumes:
- {name: ../../../../srv/victim, secret: {secretName: s}}`) + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {pw: x}\n",
		want: `k.yaml:12: spec.template.spec.volumes[0].name: "../../../../srv/victim" is not a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit), as Kubernetes requires`,
	}, {
		name: "two volumes of one name",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: s, mountPath: /s}]}
volumes:
- {name: s, secret: {secretName: s}}
- {name: s, emptyDir: {medium: Memory}}`) + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {pw: x}\n",
		want: `k.yaml:13: spec.template.spec.volumes[1].name: "s": a second volume of that name (the first is at line 12)`,
	}, {
		name: "a key that is no file name",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: s, mountPath: /s}]}
volumes:
- {name: s, configMap: {name: c}}`) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {'..': x}\n",
		want: `k.yaml:14: data: data: ".." is not a valid key (letters, digits, '-', '_' and '.', not '.' or '..'), as Kubernetes requires`,
	}, {
		name: "an item path that leaves the volume",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: s, mountPath: /s}]}
volumes:
- {name: s, configMap: {name: c, items: [{key: k, path: a/../../x}, {key: k, path: /etc/x}, {key: k, path: ./.}]}}`) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: x}\n",
		want: `k.yaml:12: spec.template.spec.volumes[0].configMap.items[0].path: "a/../../x": a relative path inside the volume, with no element '..' or starting with '..'
k.yaml:12: spec.template.spec.volumes[0].configMap.items[1].path: "/etc/x": a relative path inside the volume, not an absolute one
k.yaml:12: spec.template.spec.volumes[0].configMap.items[2].path: "./.": the path names the volume itself, not a file in it`,
	}, {
		name: "a ConfigMap name that is not a DNS subdomain",
		src: sts(`containers:
- {name: a, image: x:1, volumeMounts: [{name: s, mountPath: /s}]}
volumes:
- {name: s, configMap: {name: ../c}}`),
		want: `k.yaml:12: spec.template.spec.volumes[0].configMap.name: "../c" is not a DNS-1123 subdomain (at most 253 lowercase letters, digits, '-' and '.'), as Kubernetes requires of an object's name
k.yaml:12: spec.template.spec.volumes[0].configMap: ConfigMap "../c" is not in these files (--lenient to go on without it)`,
	}, {
		name: "wrong types",
		src:  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}\nspec:\n  replicas: many\n  template: {spec: {containers: [{name: a, image: [x]}]}}\n",
		want: `k.yaml:5: spec.replicas: expected a whole number, got "many"
k.yaml:6: spec.template.spec.containers[0].image: expected a string, got a list`,
	}, {
		name: "validation at the manifest's line",
		src:  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: Web_1}\nspec:\n  template: {spec: {containers: [{name: a, image: x}]}}\n",
		want: `k.yaml:3: name: "Web_1" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
	}, {
		name: "old apiVersion",
		src:  "apiVersion: apps/v1beta2\nkind: StatefulSet\nmetadata: {name: web}\nspec:\n  template: {spec: {containers: [{name: a, image: x}]}}\n",
		want: `k.yaml:1: apiVersion: "apps/v1beta2": a StatefulSet must be apps/v1 (--lenient to go on without it)`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseWithManifests("k.yaml", []byte(c.src))
			if err == nil || err.Error() != c.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

// TestKubernetesAcrossFiles: the headless Service and a ConfigMap may be in
// another -f file; a Service that is not the StatefulSet's is skipped with a
// note, and a lenient load turns unmappable fields into warnings.
func TestKubernetesAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.yaml", sts(`nodeSelector: {disk: ssd}
containers:
- {name: a, image: x:1, env: [{name: K, valueFrom: {configMapKeyRef: {name: cfg, key: k}}}]}`))
	b := write("b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {clusterIP: None}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {clusterIP: None}\n---\nname: plain\ntemplate: {image: y}\n")
	var warnings []string
	sets, files, err := config.Loader{Manifests: Manifests{}, Lenient: true, Warn: func(m string) { warnings = append(warnings, m) }}.LoadFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 2 || sets[0].Name != "plain" || sets[1].Name != "web" || sets[1].Template.EnvRefs["K"].Key != "k" || sets[1].Template.EnvRefs["K"].Name != "cfg" {
		t.Fatalf("sets = %+v", sets)
	}
	if len(files) != 1 || string(files[0].Data) != "v" {
		t.Fatalf("files = %+v, want the key's value", files)
	}
	want := []string{
		a + `:9: spec.template.spec.nodeSelector: scheduling: a cluster's scheduler reads it; ostset runs every replica on one Docker host (kept for an export, not applied)`,
		b + `:11: skipped Service "other": it selects the pods of no StatefulSet of these files (a Service that does is a DNS name of their replicas)`,
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	_, _, err = (config.Loader{Manifests: Manifests{Strict: true}}).LoadFiles([]string{a, b})
	if want := a + ":9: spec.template.spec.nodeSelector: scheduling: a cluster's scheduler reads it; ostset runs every replica on one Docker host (kept for an export, not applied)" + strictSuffix +
		"\n" + b + `:11: skipped Service "other": it selects the pods of no StatefulSet of these files (a Service that does is a DNS name of their replicas)` + strictSuffix; err == nil || err.Error() != want {
		t.Errorf("strict load error = %v, want\n%s", err, want)
	}
}

func TestKubeQuantities(t *testing.T) {
	for in, want := range map[string]string{"500m": "0.5", "2": "2", "0.25": "0.25", "1m": "0.001", "1500m": "1.5"} {
		if got, err := kubeCPU(in); err != nil || got != want {
			t.Errorf("kubeCPU(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "0", "x", "1k"} {
		if _, err := kubeCPU(bad); err == nil {
			t.Errorf("kubeCPU(%q) accepted", bad)
		}
	}
	for in, want := range map[string]int64{"1Gi": 1 << 30, "500M": 500e6, "1e3": 1000, "1.5Ki": 1536, "0.5": 1, "128974848": 128974848} {
		if got, err := kubeQuantity(in); err != nil || got != want {
			t.Errorf("kubeQuantity(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1Zi", "-1", "1e30", "0"} {
		if _, err := kubeQuantity(bad); err == nil {
			t.Errorf("kubeQuantity(%q) accepted", bad)
		}
	}
}

func TestKubePullPolicy(t *testing.T) {
	for _, c := range [][3]string{
		{"nginx", "", config.PullAlways}, {"nginx:latest", "", config.PullAlways}, {"localhost:5000/nginx", "", config.PullAlways},
		{"nginx:1.25", "", ""}, {"nginx@sha256:abc", "", ""}, {"nginx", "IfNotPresent", ""}, {"nginx:1", "Never", config.PullNever},
	} {
		if got := kubePullPolicy(c[0], c[1]); got != c[2] {
			t.Errorf("kubePullPolicy(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// parseWithManifests reads a file of sets and Kubernetes objects, as up does.
func parseWithManifests(filename string, data []byte) ([]config.Set, error) {
	return config.Loader{Manifests: Manifests{}}.Parse(filename, data)
}

// parseWithFiles is l.Parse with the files the sets' ConfigMap and Secret
// volumes show, as LoadFiles returns them: Manifests is wrapped to keep
// what its reading gives the loader.
func parseWithFiles(l config.Loader, filename string, data []byte) ([]config.Set, []config.ConfigFile, error) {
	var files []config.ConfigFile
	l.Manifests = keepFiles{Manifests{}, &files}
	sets, err := l.Parse(filename, data)
	if err != nil {
		return nil, nil, err
	}
	return sets, files, nil
}

type keepFiles struct {
	Manifests
	files *[]config.ConfigFile
}

func (k keepFiles) Read(l config.Loader) config.ManifestReading {
	return keptReading{k.Manifests.Read(l), k.files}
}

type keptReading struct {
	config.ManifestReading
	files *[]config.ConfigFile
}

func (r keptReading) Sets() ([]config.Imported, []config.ConfigFile, []error) {
	sets, files, errs := r.ManifestReading.Sets()
	*r.files = files
	return sets, files, errs
}

// A ConfigMap or Secret volume's files keep their modes (defaultMode,
// items[].mode, 0644 by default); with the pod's fsGroup they belong to that
// group and the group may read them, as the kubelet gives them.
func TestKubernetesVolumeFileModes(t *testing.T) {
	src := func(fsGroup string) string {
		return sts(`securityContext: {runAsUser: 1000`+fsGroup+`}
containers:
- {name: c, image: x:1, volumeMounts: [{name: creds, mountPath: /etc/creds}, {name: conf, mountPath: /etc/conf}]}
volumes:
- {name: creds, secret: {secretName: creds, defaultMode: 0400, items: [{key: pw, path: password}, {key: pw, path: pw2, mode: 0600}]}}
- {name: conf, configMap: {name: conf}}`) + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {pw: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf}\ndata: {a: x}\n"
	}
	for _, c := range []struct {
		fsGroup string
		want    map[string][2]int // name → mode, gid
	}{
		{"", map[string][2]int{"password": {0o400, 0}, "pw2": {0o600, 0}, "a": {0o644, 0}}},
		{", fsGroup: 2000", map[string][2]int{"password": {0o440, 2000}, "pw2": {0o640, 2000}, "a": {0o644, 2000}}},
	} {
		_, files, err := parseWithFiles(config.Loader{ConfigDir: "/state/manifest-volumes"}, "k.yaml", []byte(src(c.fsGroup)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][2]int{}
		for _, f := range files {
			got[f.Name] = [2]int{int(f.Mode), f.GID}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("fsGroup %q: modes and groups %v, want %v", c.fsGroup, got, c.want)
		}
	}
}

// TestKubernetesStrict: the ZooKeeper tutorial loads without --lenient, what
// only a cluster applies noted; Strict refuses exactly those, each at its line.
func TestKubernetesStrict(t *testing.T) {
	path := filepath.Join("testdata", "kubernetes", "zookeeper.yaml")
	if _, _, err := (config.Loader{Manifests: Manifests{}}).LoadFiles([]string{path}); err != nil {
		t.Fatalf("load: %v", err)
	}
	_, _, err := (config.Loader{Manifests: Manifests{Strict: true}}).LoadFiles([]string{path})
	want := []string{
		path + `:38: PodDisruptionBudget "zk-pdb": ostset evicts nothing: only a cluster drains nodes (kept for an export, not applied)`,
		path + `:67: spec.template.spec.affinity.podAntiAffinity: ` + clusterOnly + ` (kept for an export, not applied)`,
	}
	for i := range want {
		want[i] += strictSuffix
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("strict load error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// TestKubernetesClientServices: a Service that selects the set's pods is a
// DNS name of its replicas (kept in the revision), what a cluster does beyond
// the name is noted; a Service that selects other pods, or pods of another
// namespace, is skipped.
func TestKubernetesClientServices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.yaml")
	src := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers: [{name: a, image: x:1}]
---
apiVersion: v1
kind: Service
metadata: {name: web-lb}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports:
  - {port: 80, targetPort: 8080}
---
apiVersion: v1
kind: Service
metadata: {name: web-read}
spec: {selector: {app: web, tier: front}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: other}
spec: {selector: {app: other}}
---
apiVersion: v1
kind: Service
metadata: {name: elsewhere, namespace: prod}
spec: {selector: {app: web}}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	sets, _, err := config.Loader{Manifests: Manifests{}, Warn: func(m string) { warnings = append(warnings, m) }}.LoadFiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if got := sets[0].RevisionSpec("sha256:x").Services; !slices.Equal(got, []string{"web-lb", "web-read"}) {
		t.Errorf("services %q, want web-lb and web-read", got)
	}
	skip := `: it selects the pods of no StatefulSet of these files (a Service that does is a DNS name of their replicas)`
	want := []string{
		path + `:15: spec.type: Service "web-lb": LoadBalancer: a cluster's; here web-lb is a DNS name of every replica (publish host ports with a set file's hostPort) (not applied)`,
		path + `:18: spec.ports[0].targetPort: Service "web-lb": port 80 goes to 8080 in a cluster; a DNS name reaches each replica's own port 80 (not applied)`,
		path + `:25: skipped Service "other"` + skip,
		path + `:30: skipped Service "elsewhere"` + skip,
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}
