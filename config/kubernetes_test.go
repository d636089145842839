package config

import (
	"encoding/json"
	"fmt"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the Kubernetes import tests")

// importFixture loads testdata/kubernetes/<name>.yaml leniently and returns
// the sets, the config files and every warning.
func importFixture(t *testing.T, lenient bool, names ...string) ([]Set, []ConfigFile, []string, error) {
	t.Helper()
	var warnings []string
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join("testdata", "kubernetes", n+".yaml"))
	}
	l := Loader{Lenient: lenient, Warn: func(m string) { warnings = append(warnings, m) }, ConfigDir: "/state/manifest-volumes"}
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
				t.Errorf("import differs from %s (go test ./config -run TestKubernetesFixtures -update):\n%s", golden, b.String())
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
		"latest": "name: web\ntemplate: {image: nginx, imagePullPolicy: IfNotPresent}\n",
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
			sets, err := Parse("set.yaml", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := sets[0]
			manifest, _, err := ExportKubernetes(want, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			got, err := Loader{Warn: func(m string) { warnings = append(warnings, m) }}.Parse("export.yaml", manifest)
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
