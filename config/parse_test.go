package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The example from the user-facing contract.
const contractExample = `name: web
replicas: 3
serviceName: web
network: ostset
podManagementPolicy: OrderedReady
updateStrategy:
  type: RollingUpdate
  rollingUpdate:
    partition: 0
    maxUnavailable: 1
minReadySeconds: 0
revisionHistoryLimit: 10
ordinals:
  start: 0
persistentVolumeClaimRetentionPolicy:
  whenDeleted: Retain
  whenScaled: Retain
terminationGracePeriodSeconds: 10
template:
  image: redis:7
  command: ["redis-server"]
  args: ["--port", "6379"]
  env: {KEY: value}
  workingDir: /x
  user: "1000:1000"
  labels: {k: v}
  ports:
    - {containerPort: 6379, hostPort: 16379, protocol: tcp}
  healthcheck:
    test: ["CMD", "redis-cli", "ping"]
    interval: 2s
    timeout: 1s
    retries: 3
    startPeriod: 0s
  volumeMounts:
    - {source: ./conf, target: /etc/app, readOnly: true}
  resources: {cpus: "0.5", memory: 256Mi}
  restartPolicy: unless-stopped
volumeClaimTemplates:
  - name: data
    mountPath: /data
    driver: local
`

func noEnv(string) (string, bool) { return "", false }

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseContractExample(t *testing.T) {
	sets, err := Parse("set.yaml", []byte(contractExample), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := Set{
		Name:                                 "web",
		Replicas:                             ptr(3),
		ServiceName:                          "web",
		Network:                              "ostset",
		PodManagementPolicy:                  OrderedReady,
		UpdateStrategy:                       UpdateStrategy{Type: RollingUpdate, RollingUpdate: RollingUpdateParams{MaxUnavailable: "1"}, ProgressDeadlineSeconds: ptr(600)},
		RevisionHistoryLimit:                 ptr(10),
		PersistentVolumeClaimRetentionPolicy: RetentionPolicy{WhenDeleted: Retain, WhenScaled: Retain},
		TerminationGracePeriodSeconds:        ptr(10),
		Template: Template{
			Image:      "redis:7",
			Command:    []string{"redis-server"},
			Args:       []string{"--port", "6379"},
			Env:        map[string]string{"KEY": "value"},
			WorkingDir: "/x",
			User:       "1000:1000",
			Labels:     map[string]string{"k": "v"},
			Ports:      []Port{{ContainerPort: 6379, HostPort: 16379, Protocol: "tcp"}},
			Healthcheck: &Healthcheck{
				Test:     []string{"CMD", "redis-cli", "ping"},
				Interval: Duration(2 * time.Second),
				Timeout:  Duration(time.Second),
				Retries:  3,
			},
			VolumeMounts:  []VolumeMount{{Source: "./conf", Target: "/etc/app", ReadOnly: true}},
			Resources:     Resources{CPUs: "0.5", Memory: "256Mi"},
			RestartPolicy: "unless-stopped",
		},
		VolumeClaimTemplates: []VolumeClaimTemplate{{Name: "data", MountPath: "/data", Driver: "local"}},
		Source:               "set.yaml:1",
	}
	if len(sets) == 1 && (!sets[0].Written["replicas"] || !sets[0].Written["updateStrategy.rollingUpdate.partition"]) {
		t.Errorf("written fields %v lack replicas and the partition", sets[0].Written)
	}
	if len(sets) == 1 {
		sets[0].Written, sets[0].Lines = nil, nil
	}
	if len(sets) != 1 || !reflect.DeepEqual(sets[0], want) {
		t.Errorf("got  %+v\nwant %+v", sets, want)
	}
}

func TestParseDefaults(t *testing.T) {
	sets, err := Parse("set.yaml", []byte("name: db\ntemplate:\n  image: postgres\n  ports: [{containerPort: 5432}]\nvolumeClaimTemplates: [{name: data, mountPath: /var/lib/postgresql}]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	// Defaults are not written by the file: a value a command set survives them.
	if s.Written["replicas"] || !s.Written["template.image"] {
		t.Errorf("written fields %v: want template.image and not replicas", s.Written)
	}
	s.Written, s.Lines = nil, nil
	want := Set{
		Name:                                 "db",
		Replicas:                             ptr(1),
		ServiceName:                          "db",
		Network:                              "ostset",
		PodManagementPolicy:                  OrderedReady,
		UpdateStrategy:                       UpdateStrategy{Type: RollingUpdate, RollingUpdate: RollingUpdateParams{MaxUnavailable: "1"}, ProgressDeadlineSeconds: ptr(600)},
		RevisionHistoryLimit:                 ptr(10),
		PersistentVolumeClaimRetentionPolicy: RetentionPolicy{WhenDeleted: Retain, WhenScaled: Retain},
		TerminationGracePeriodSeconds:        ptr(10),
		Template: Template{
			Image:         "postgres",
			Ports:         []Port{{ContainerPort: 5432, Protocol: "tcp"}},
			RestartPolicy: "unless-stopped",
		},
		VolumeClaimTemplates: []VolumeClaimTemplate{{Name: "data", MountPath: "/var/lib/postgresql", Driver: "local"}},
		Source:               "set.yaml:1",
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

func TestParseDocuments(t *testing.T) {
	src := `# comment only before the first document
---
---
# an empty document
---
name: a
template: {image: x}
---
null
---

name: b
template: {image: y}
`
	sets, err := Parse("f.yaml", []byte(src), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, s.Name+"@"+s.Source)
	}
	if want := []string{"a@f.yaml:6", "b@f.yaml:12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseInterpolation(t *testing.T) {
	src := `name: ${NAME:-web}
replicas: ${REPLICAS}
template:
  image: "redis:${TAG:-7}"
  args: ["{{ $x := .Ordinal }}{{ $x }}", "$$HOME", "$PASSWORD"]
  env:
    PASSWORD: ${PASSWORD}
    EMPTY: ${UNSET}
  # ${NOT_A_VALUE:?comments are not interpolated}
`
	env := envOf(map[string]string{"REPLICAS": "3", "PASSWORD": "a #b: c, d\n\"e'"})
	sets, err := Parse("set.yaml", []byte(src), env)
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	if s.Name != "web" || *s.Replicas != 3 || s.Template.Image != "redis:7" {
		t.Errorf("name, replicas, image = %q, %d, %q", s.Name, *s.Replicas, s.Template.Image)
	}
	wantArgs := []string{"{{ $x := .Ordinal }}{{ $x }}", "$HOME", "a #b: c, d\n\"e'"}
	if !reflect.DeepEqual(s.Template.Args, wantArgs) {
		t.Errorf("args = %q, want %q", s.Template.Args, wantArgs)
	}
	wantEnv := map[string]string{"PASSWORD": "a #b: c, d\n\"e'", "EMPTY": ""}
	if !reflect.DeepEqual(s.Template.Env, wantEnv) {
		t.Errorf("env = %q, want %q", s.Template.Env, wantEnv)
	}
}

// A replica's own variables in a shell command reach the container as
// written, whatever ostset's environment holds; any other variable that is
// not set is warned about, with its file, line and field.
func TestParseLeavesRuntimeVariablesAndWarns(t *testing.T) {
	src := `name: db
template:
  image: x
  command:
    - sh
    - -c
    - |
      if [ "$OSTSET_ORDINAL" = 0 ]; then exec primary; fi
      exec replica --from ${OSTSET_SET}-0.$OSTSET_SERVICE --data $PGDATA
  env:
    A: ${MISSING}
    B: ${MISSING:-fine}
    C: $${PGDATA}
`
	env := envOf(map[string]string{"OSTSET_ORDINAL": "3", "OSTSET_SET": "mine"})
	var warnings []string
	sets, err := Loader{LookupEnv: env, Warn: func(m string) { warnings = append(warnings, m) }}.Parse("set.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "if [ \"$OSTSET_ORDINAL\" = 0 ]; then exec primary; fi\nexec replica --from ${OSTSET_SET}-0.$OSTSET_SERVICE --data \n"
	if got := sets[0].Template.Command[2]; got != want {
		t.Errorf("command[2] = %q, want %q", got, want)
	}
	if got := sets[0].Template.Env["C"]; got != "${PGDATA}" {
		t.Errorf("env C = %q, want ${PGDATA}", got)
	}
	wantWarnings := []string{
		`set.yaml:7: template.command[2]: The "PGDATA" variable is not set. Defaulting to a blank string.`,
		`set.yaml:11: template.env.A: The "MISSING" variable is not set. Defaulting to a blank string.`,
	}
	if !reflect.DeepEqual(warnings, wantWarnings) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(wantWarnings, "\n"))
	}
}

func TestParseAnchorsAndMerges(t *testing.T) {
	src := `name: a
template: &tpl
  image: x
  env: &env {A: "$$X"}
---
name: b
template:
  <<: *tpl
  env: *env
`
	sets, err := Parse("set.yaml", []byte(src), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// The anchored value is interpolated once, where it is written.
	if got := sets[1].Template.Env["A"]; got != "$X" || sets[1].Template.Image != "x" {
		t.Errorf("b: image %q, env A = %q", sets[1].Template.Image, got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		env       map[string]string
		want      []string
	}{{
		name: "unknown field",
		src:  "name: web\nreplica: 3\ntemplate:\n  image: x\n  imagePullSecrets: [x]\n  Env: {}\n",
		want: []string{
			`set.yaml:2: unknown field "replica" (did you mean "replicas"?)`,
			`set.yaml:5: template: unknown field "imagePullSecrets"`,
			`set.yaml:6: template: unknown field "Env" (did you mean "env"?)`,
		},
	}, {
		name: "unknown pull policy",
		src:  "name: web\ntemplate:\n  image: x\n  imagePullPolicy: always\n",
		want: []string{
			`set.yaml:4: template.imagePullPolicy: "always" must be IfNotPresent, Always or Never`,
		},
	}, {
		name: "not a duration",
		src:  "name: web\ntemplate:\n  image: x\n  healthcheck:\n    test: [NONE]\n    interval: 2\n    timeout: soon\n",
		want: []string{
			`set.yaml:6: template.healthcheck.interval: "2" is not a duration (like 2s, 500ms, 1m30s)`,
			`set.yaml:7: template.healthcheck.timeout: "soon" is not a duration (like 2s, 500ms, 1m30s)`,
		},
	}, {
		name: "wrong shapes",
		src:  "name: web\nreplicas: three\ntemplate:\n  image: [x]\n  command: sh -c true\n  ports: [{containerPort: 80, hostPort: 80.5}]\n  volumeMounts: [{source: a, target: /a, readOnly: yes}]\n  env: {A: {B: c}}\nupdateStrategy: {rollingUpdate: {maxUnavailable: [1]}}\n",
		want: []string{
			`set.yaml:2: replicas: "three" is not an integer`,
			`set.yaml:4: template.image: expected a single value, got a list`,
			`set.yaml:5: template.command: expected a list, got "sh -c true"`,
			`set.yaml:6: template.ports[0].hostPort: "80.5" is not an integer`,
			`set.yaml:7: template.volumeMounts[0].readOnly: "yes" is not true or false`,
			`set.yaml:8: template.env.A: expected a single value, got a mapping`,
			`set.yaml:9: updateStrategy.rollingUpdate.maxUnavailable: "" is not an integer or a percentage`,
		},
	}, {
		name: "duplicate key",
		src:  "name: web\ntemplate: {image: x}\nname: db\n",
		want: []string{`set.yaml:3: key "name" is already defined at line 1`},
	}, {
		name: "validation with lines",
		src:  "name: Web\nreplicas: -1\ntemplate:\n  image: x\n  ports:\n    - containerPort: 0\n      protocol: TCP\n  args: [ok, \"{{.Host}}\"]\nvolumeClaimTemplates:\n  - name: data\n    mountPath: data\n",
		want: []string{
			`set.yaml:1: name: "Web" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
			`set.yaml:2: replicas: must be >= 0, got -1`,
			`set.yaml:6: template.ports[0].containerPort: must be from 1 to 65535, got 0`,
			`set.yaml:7: template.ports[0].protocol: "TCP" must be tcp, udp or sctp`,
			`set.yaml:8: template.args[1]: unknown template field .Host (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)`,
			`set.yaml:11: volumeClaimTemplates[0].mountPath: "data" must be an absolute path`,
		},
	}, {
		name: "missing required fields point at the parent",
		src:  "# a comment\nname: web\ntemplate:\n  command: [x]\n",
		want: []string{`set.yaml:3: template.image: is required`},
	}, {
		name: "missing template points at the document",
		src:  "---\nname: web\n",
		want: []string{`set.yaml:2: template.image: is required`},
	}, {
		name: "shape and validation errors together, without repeats",
		src:  "name: web\nreplicas: x\ntemplate: redis\n",
		want: []string{
			`set.yaml:2: replicas: "x" is not an integer`,
			`set.yaml:3: template: expected a mapping, got "redis"`,
		},
	}, {
		name: "required variable",
		src:  "name: web\ntemplate:\n  image: x\n  env:\n    PW: ${PW:?set PW to the password}\n",
		want: []string{`set.yaml:5: template.env.PW: required variable PW is missing a value: set PW to the password`},
	}, {
		name: "bad interpolation",
		src:  "name: web\ntemplate:\n  image: ${TAG\n",
		want: []string{`set.yaml:3: template.image: invalid interpolation format in "${TAG": missing '}'`},
	}, {
		name: "not a mapping",
		src:  "- name: web\n",
		want: []string{`set.yaml:1: expected a mapping describing a set, got a list`},
	}, {
		name: "syntax error",
		src:  "name: web\ntemplate:\n  image: \"x\n",
		want: []string{`set.yaml:3: found unexpected end of stream`},
	}, {
		name: "tab",
		src:  "name: web\n\ttemplate: {}\n",
		want: []string{`set.yaml:2: found a tab character that violates indentation`},
	}, {
		name: "duplicate set",
		src:  "name: web\ntemplate: {image: x}\n---\ntemplate: {image: y}\nname: web\n",
		want: []string{`set.yaml:5: name: set "web" is already defined at set.yaml:1`},
	}, {
		name: "errors in several documents",
		src:  "name: a\ntemplate: {}\n---\nname: b\ntemplate: {image: x, user: 1, workingDir: w}\nminReadySeconds: -1\n",
		want: []string{
			`set.yaml:2: template.image: is required`,
			`set.yaml:6: minReadySeconds: must be >= 0, got -1`,
		},
	}, {
		name: "no sets",
		src:  "# nothing\n---\n",
		want: []string{`set.yaml: no sets defined`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sets, err := Parse("set.yaml", []byte(tt.src), envOf(tt.env))
			if err == nil {
				t.Fatalf("no error, sets %+v", sets)
			}
			if sets != nil {
				t.Errorf("sets = %+v, want nil with an error", sets)
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(path, []byte("name: web\ntemplate: {image: \"${IMAGE}\"}\nreplicas: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, envOf(map[string]string{"IMAGE": "redis"}))
	if want := path + `:3: replicas: "x" is not an integer`; err == nil || err.Error() != want {
		t.Errorf("Load error = %v, want %s", err, want)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), nil); !os.IsNotExist(err) {
		t.Errorf("Load(missing) = %v, want a not-exist error", err)
	}
}

func TestParseInterpolatedTypes(t *testing.T) {
	src := `name: web
replicas: "${REPLICAS}"
template:
  image: x
  ports: [{containerPort: "${PORT}", hostPort: "${HOSTPORT:-0}"}]
  volumeMounts: [{source: a, target: /a, readOnly: "${RO}"}]
  labels:
    version: "${VERSION}"
    mode: "${MODE}"
    tagged: !!str "${PORT}"
    plain: ${VERSION}
  env:
    EMPTY: "${UNSET}"
    PLAIN_EMPTY: ${UNSET}
`
	env := envOf(map[string]string{"REPLICAS": "3", "PORT": "80", "RO": "true", "VERSION": "1.10", "MODE": "null"})
	sets, err := Parse("set.yaml", []byte(src), env)
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	if *s.Replicas != 3 || s.Template.Ports[0].ContainerPort != 80 || s.Template.Ports[0].HostPort != 0 || !s.Template.VolumeMounts[0].ReadOnly {
		t.Errorf("replicas %d, ports %+v, mounts %+v", *s.Replicas, s.Template.Ports, s.Template.VolumeMounts)
	}
	wantLabels := map[string]string{"version": "1.10", "mode": "null", "tagged": "80", "plain": "1.10"}
	if !reflect.DeepEqual(s.Template.Labels, wantLabels) {
		t.Errorf("labels = %q, want %q", s.Template.Labels, wantLabels)
	}
	if e := s.Template.Env; e["EMPTY"] != "" || e["PLAIN_EMPTY"] != "" || len(e) != 2 {
		t.Errorf("env = %q", e)
	}
}

// Keys starting with x- are extension fields, as in compose: ignored wherever a
// field name goes, so that YAML anchors can hold shared pieces.
func TestExtensionFields(t *testing.T) {
	file := `x-common: &health
  test: ["CMD", "true"]
  interval: 2s
name: web
x-note: anything
template:
  image: x
  x-owner: team-a
  healthcheck: *health
`
	sets, err := Parse("set.yaml", []byte(file), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if hc := sets[0].Template.Healthcheck; hc == nil || time.Duration(hc.Interval) != 2*time.Second {
		t.Errorf("healthcheck from the x- anchor: %+v", hc)
	}
	if _, err := Parse("set.yaml", []byte("name: web\ny-note: 1\ntemplate: {image: x}\n"), noEnv); err == nil {
		t.Error("an unknown field without the x- prefix was accepted")
	}
}

// Hostile files are refused quickly: an anchor bomb, a file of many megabytes.
func TestHostileFilesRefused(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, prev := range []string{"a", "b", "c", "d", "e", "f"} {
		name := string(rune('b' + i))
		bomb += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	bomb += "name: web\ntemplate: {image: x, args: *g}\n"
	start := time.Now()
	_, err := Parse("set.yaml", []byte(bomb), noEnv)
	if err == nil || !strings.Contains(err.Error(), "set.yaml:1: the document expands to more than") {
		t.Errorf("anchor bomb: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("anchor bomb took %s", d)
	}
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("name: web\ntemplate: {image: x}\n# "+strings.Repeat("x", 10<<20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big, noEnv); err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Errorf("a 10 MB file: %v", err)
	}
}

// Every example's set file loads as it is, with no variable set.
func TestExamplesLoad(t *testing.T) {
	files, err := filepath.Glob("../examples/*/set.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		var warnings []string
		sets, err := Loader{Warn: func(w string) { warnings = append(warnings, w) }}.Load(f)
		if err != nil || len(sets) != 1 {
			t.Errorf("%s: %d sets, %v", f, len(sets), err)
		}
		if len(warnings) > 0 {
			t.Errorf("%s: warnings %q", f, warnings)
		}
	}
}
