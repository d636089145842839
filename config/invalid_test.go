package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// file is one set file of an invalid input.
type file struct{ name, src string }

// base is a valid set to which a row adds one mistake.
const base = "name: web\ntemplate:\n  image: redis:7\n"

func one(src string) []file { return []file{{"set.yaml", src}} }

// anchorBomb is a few lines of nested aliases that expand to 9^7 values.
func anchorBomb() string {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, prev := range []string{"a", "b", "c", "d", "e", "f"} {
		name := string(rune('b' + i))
		bomb += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	return bomb + "name: web\ntemplate: {image: x, args: *g}\n"
}

// Every invalid input is refused with one line per problem, naming the file,
// the line and the field, exactly as below; the other problems of the same
// files are reported with it.
func TestInvalidInputs(t *testing.T) {
	long62 := strings.Repeat("a", 62)
	tests := []struct {
		name  string
		files []file
		want  []string
	}{
		// Counts and update parameters.
		{"negative replicas", one("name: web\nreplicas: -1\ntemplate: {image: x}\n"), []string{
			`set.yaml:2: replicas: must be >= 0, got -1`}},
		{"too many replicas", one("name: web\nreplicas: 1000000000\ntemplate: {image: x, env: {A: '{{.Ordinal}}'}}\n"), []string{
			`set.yaml:2: replicas: must be at most 1000, got 1000000000`}},
		{"replicas not an integer", one("name: web\nreplicas: three\ntemplate: {image: x}\n"), []string{
			`set.yaml:2: replicas: "three" is not an integer`}},
		{"replicas above int64", one("name: web\nreplicas: 99999999999999999999\ntemplate: {image: x}\n"), []string{
			`set.yaml:2: replicas: "99999999999999999999" is not an integer`}},
		{"negative partition", one(base + "updateStrategy: {rollingUpdate: {partition: -2}}\n"), []string{
			`set.yaml:4: updateStrategy.rollingUpdate.partition: must be >= 0, got -2`}},
		{"maxUnavailable 0", one(base + "updateStrategy:\n  rollingUpdate:\n    maxUnavailable: 0\n"), []string{
			`set.yaml:6: updateStrategy.rollingUpdate.maxUnavailable: "0" must be an integer >= 1 or a percentage from 1% to 100%`}},
		{"maxUnavailable 0%", one(base + "updateStrategy:\n  rollingUpdate:\n    maxUnavailable: 0%\n"), []string{
			`set.yaml:6: updateStrategy.rollingUpdate.maxUnavailable: "0%" must be a percentage from 1% to 100%`}},
		{"maxUnavailable 150%", one(base + "updateStrategy: {rollingUpdate: {maxUnavailable: 150%}}\n"), []string{
			`set.yaml:4: updateStrategy.rollingUpdate.maxUnavailable: "150%" must be a percentage from 1% to 100%`}},
		{"ordinals.start too large", one(base + "ordinals: {start: 2000000000}\n"), []string{
			`set.yaml:4: ordinals.start: must be at most 1000000000, got 2000000000`}},
		{"progress deadline not above minReadySeconds", one(base + "minReadySeconds: 60\nupdateStrategy: {progressDeadlineSeconds: 60}\n"), []string{
			`set.yaml:5: updateStrategy.progressDeadlineSeconds: must be greater than minReadySeconds (60), got 60`}},
		{"negative revision history", one(base + "revisionHistoryLimit: -1\n"), []string{
			`set.yaml:4: revisionHistoryLimit: must be >= 0, got -1`}},

		// Policies.
		{"unknown pod management policy", one(base + "podManagementPolicy: Ordered\n"), []string{
			`set.yaml:4: podManagementPolicy: "Ordered" must be OrderedReady or Parallel`}},
		{"unknown update strategy", one(base + "updateStrategy: {type: Recreated}\n"), []string{
			`set.yaml:4: updateStrategy.type: "Recreated" must be RollingUpdate, OnDelete or Recreate`}},
		{"Recreate with a partition", one(base + "updateStrategy:\n  type: Recreate\n  rollingUpdate: {partition: 1}\n"), []string{
			`set.yaml:6: updateStrategy.rollingUpdate.partition: only allowed for updateStrategy.type RollingUpdate, not Recreate`}},
		{"unknown retention policy", one(base + "persistentVolumeClaimRetentionPolicy:\n  whenScaled: delete\n"), []string{
			`set.yaml:5: persistentVolumeClaimRetentionPolicy.whenScaled: "delete" must be Retain or Delete`}},
		{"unknown pull policy", one(base + "  imagePullPolicy: always\n"), []string{
			`set.yaml:4: template.imagePullPolicy: "always" must be IfNotPresent, Always or Never`}},
		{"unknown restart policy", one(base + "  restartPolicy: sometimes\n"), []string{
			`set.yaml:4: template.restartPolicy: "sometimes" must be one of no, always, unless-stopped, on-failure, on-failure:N`}},

		// Names: DNS-1123 labels of at most 63 characters, replica names included.
		{"name not DNS-1123", one("name: Web_1\ntemplate: {image: x}\n"), []string{
			`set.yaml:1: name: "Web_1" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`}},
		{"name too long", one("name: " + long62 + "ab\ntemplate: {image: x}\n"), []string{
			`set.yaml:1: name: "` + long62 + `ab" must be at most 63 characters`}},
		{"name too long for its ordinals", one("name: " + long62 + "\nreplicas: 10\nserviceName: web\ntemplate: {image: x}\n"), []string{
			`set.yaml:1: name: "` + long62 + `" is too long: replica name "` + long62 + `-9" must be at most 63 characters`}},
		{"service name not DNS-1123", one(base + "serviceName: web.svc\n"), []string{
			`set.yaml:4: serviceName: "web.svc" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`}},
		{"predefined network", one(base + "network: bridge\n"), []string{
			`set.yaml:4: network: "bridge" is a predefined Docker network; use a user-defined network such as "ostset"`}},
		{"host network for several replicas", one(base + "network: host\nreplicas: 2\n"), []string{
			`set.yaml:4: network: host networking takes one replica: 2 replicas would share the host's ports`}},
		{"host network with another", one(base + "networks: [host, front]\n"), []string{
			`set.yaml:4: networks[0]: "host" is the container's network mode: it stands alone, with no other network, alias or address`}},
		{"fixed address for several replicas", one(base + "replicas: 2\nnetworks:\n  - {name: front, ipv4Address: 10.9.0.5, ipam: [{subnet: 10.9.0.0/24}]}\n"), []string{
			`set.yaml:6: networks[0].ipv4Address: a fixed address names one container: the set has 2 replicas`}},
		{"fixed address outside the subnet", one(base + "networks:\n  - {name: front, ipv4Address: 10.8.0.5, ipv6Address: 10.9.0.6, ipam: [{subnet: 10.9.0.0/24, gateway: 10.7.0.1}]}\n"), []string{
			`set.yaml:5: networks[0].ipam[0].gateway: "10.7.0.1" is not an address in 10.9.0.0/24`,
			`set.yaml:5: networks[0].ipv4Address: 10.8.0.5 is in no subnet of ipam`,
			`set.yaml:5: networks[0].ipv6Address: "10.9.0.6" is not an IPv6 address`}},
		{"hook without a command", one(base + "  lifecycle: {preStop: [{user: root}]}\n"), []string{
			`set.yaml:4: template.lifecycle.preStop[0].command: a hook runs a command: give one`}},
		{"claim name not DNS-1123", one(base + "volumeClaimTemplates: [{name: Data, mountPath: /data}]\n"), []string{
			`set.yaml:4: volumeClaimTemplates[0].name: "Data" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`}},
		{"duplicate claim names", one(base + "volumeClaimTemplates:\n- {name: data, mountPath: /a}\n- {name: data, mountPath: /b}\n"), []string{
			`set.yaml:6: volumeClaimTemplates[1].name: "data" is already used by volumeClaimTemplates[0]`}},

		// Labels and environment.
		{"reserved label", one(base + "  labels: {io.ostset.set: other}\n"), []string{
			`set.yaml:4: template.labels.io.ostset.set: the io.ostset. prefix is reserved for ostset's own labels`}},
		{"reserved variable", one(base + "  env: {OSTSET_ORDINAL: '7'}\n"), []string{
			`set.yaml:4: template.env.OSTSET_ORDINAL: the OSTSET_ prefix is reserved for the variables ostset sets`}},
		{"variable name with =", one(base + "  env: {'A=B': x}\n"), []string{
			`set.yaml:4: template.env.A=B: invalid variable name "A=B": must be non-empty and must not contain '='`}},
		{"env not a mapping", one(base + "  env: [A=B]\n"), []string{
			`set.yaml:4: template.env: expected a mapping, got a list`}},

		// Mounts.
		{"mount target escaping with ..", one(base + "  volumeMounts: [{source: conf, target: /etc/../../root}]\n"), []string{
			`set.yaml:4: template.volumeMounts[0].target: "/etc/../../root" must not contain ".."`}},
		{"mount over the root", one(base + "  volumeMounts: [{source: conf, target: //}]\n"), []string{
			`set.yaml:4: template.volumeMounts[0].target: "//" would mount over the container's root`}},
		{"claim mount path escaping with ..", one(base + "volumeClaimTemplates: [{name: data, mountPath: /data/..}]\n"), []string{
			`set.yaml:4: volumeClaimTemplates[0].mountPath: "/data/.." must not contain ".."`}},
		{"relative mount target", one(base + "  volumeMounts: [{source: conf, target: etc}]\n"), []string{
			`set.yaml:4: template.volumeMounts[0].target: "etc" must be an absolute path`}},
		{"templated mount target escaping for one replica", one("name: web\nreplicas: 3\ntemplate:\n  image: x\n  volumeMounts: [{source: conf, target: '/d/{{if eq .Ordinal 2}}..{{end}}'}]\n"), []string{
			`set.yaml:5: template.volumeMounts[0].target: replica 2: "/d/.." must not contain ".."`}},
		{"two mounts on one path", one(base + "  volumeMounts: [{source: a, target: /data/}]\nvolumeClaimTemplates: [{name: data, mountPath: /data}]\n"), []string{
			`set.yaml:5: volumeClaimTemplates[0].mountPath: "/data" is already mounted by template.volumeMounts[0].target`}},

		// Durations and quantities.
		{"duration without unit", one(base + "  healthcheck: {test: [CMD, 'true'], interval: 5}\n"), []string{
			`set.yaml:4: template.healthcheck.interval: "5" is not a duration (like 2s, 500ms, 1m30s)`}},
		{"duration below 1ms", one(base + "  healthcheck: {test: [CMD, 'true'], timeout: 10us}\n"), []string{
			`set.yaml:4: template.healthcheck.timeout: must be 0 or at least 1ms, got 10µs`}},
		{"cpus not a number", one(base + "  resources: {cpus: two}\n"), []string{
			`set.yaml:4: template.resources.cpus: "two" is not a positive decimal number of CPUs`}},
		{"memory with an unknown unit", one(base + "  resources: {memory: 1Zb}\n"), []string{
			`set.yaml:4: template.resources.memory: "1Zb" has an unknown unit "Zb" (use Ki, Mi, Gi, Ti, or k, m, g, t)`}},

		// Ports, within a set and across sets.
		{"host ports across ordinals", one(base + "  ports:\n  - {containerPort: 80, hostPort: 8080}\n  - {containerPort: 81, hostPort: 8082}\nreplicas: 3\n"), []string{
			`set.yaml:6: template.ports[1].hostPort: host ports 8082-8084 overlap 8080-8082 of template.ports[0]`}},
		{"host port above 65535 for the last ordinal", one(base + "  ports: [{containerPort: 80, hostPort: 65534}]\nreplicas: 3\n"), []string{
			`set.yaml:4: template.ports[0].hostPort: replica 2 would publish on port 65536, above 65535`}},
		{"host port reused across sets", one(base + "  ports: [{containerPort: 80, hostPort: 8080}]\n---\nname: db\nreplicas: 2\ntemplate:\n  image: x\n  ports:\n  - containerPort: 5432\n    hostPort: 8079\n"), []string{
			`set.yaml:12: template.ports[0].hostPort: host ports 8079-8080 overlap 8080-8080 of set "web" (set.yaml:4)`}},
		{"host port reused across files", []file{{"a.yaml", base + "  ports: [{containerPort: 80, hostPort: 8080, protocol: udp}]\n"}, {"b.yaml", "name: db\ntemplate:\n  image: x\n  ports: [{containerPort: 53, hostPort: 8080, protocol: udp, hostIP: 127.0.0.1}]\n"}}, []string{
			`b.yaml:4: template.ports[0].hostPort: host ports 8080-8080 overlap 8080-8080 of set "web" (a.yaml:4)`}},
		{"container port 0", one(base + "  ports: [{containerPort: 0}]\n"), []string{
			`set.yaml:4: template.ports[0].containerPort: must be from 1 to 65535, got 0`}},

		// Sets with one name.
		{"two sets with one name in one file", one(base + "---\n" + base), []string{
			`set.yaml:5: name: set "web" is already defined at set.yaml:1`}},
		{"two sets with one name across files", []file{{"a.yaml", base}, {"b.yaml", "# db\n" + base}}, []string{
			`b.yaml:2: name: set "web" is already defined at a.yaml:1`}},

		// Images and templates.
		{"image with upper case", one("name: web\ntemplate: {image: Redis:7}\n"), []string{
			`set.yaml:2: template.image: "Redis:7" is not a valid image reference: invalid reference format: repository name (library/Redis) must be lowercase`}},
		{"image with a space", one("name: web\ntemplate: {image: 'redis 7'}\n"), []string{
			`set.yaml:2: template.image: "redis 7" is not a valid image reference: invalid reference format`}},
		{"image missing", one("name: web\ntemplate: {command: [x]}\n"), []string{
			`set.yaml:2: template.image: is required`}},
		{"bad template syntax", one(base + "  args: ['{{.Ordinal']\n"), []string{
			`set.yaml:4: template.args[0]: invalid template: unclosed action`}},
		{"unknown template field", one(base + "  env: {ID: '{{.Index}}'}\n"), []string{
			`set.yaml:4: template.env.ID: unknown template field .Index (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)`}},
		{"template failing for a later replica", one("name: web\nreplicas: 3\ntemplate:\n  image: x\n  args: ['{{if eq .Ordinal 1}}{{index .Peers 5}}{{end}}']\n"), []string{
			`set.yaml:5: template.args[0]: replica 1: invalid template: error calling index: index out of range: 5`}},
		{"template expanding without bound", one("name: web\nreplicas: 3\ntemplate:\n  image: x\n  args: ['{{range .Peers}}{{printf \"%90000d\" 1}}{{end}}']\n"), []string{
			`set.yaml:5: template.args[0]: the template expands to more than 131072 bytes`}},
		{"nested ranges", one(base + "  args: ['{{range .Peers}}{{range $.Ordinals}}x{{end}}{{end}}']\n"), []string{
			`set.yaml:4: template.args[0]: invalid template: {{range}} may not be nested in another {{range}}`}},
		{"range over a number", one(base + "  args: ['{{range 1000000000}}{{end}}']\n"), []string{
			`set.yaml:4: template.args[0]: invalid template: {{range}} goes over .Peers or .Ordinals only`}},
		{"recursive template", one(base + "  args: ['{{define \"x\"}}{{template \"x\" .}}{{end}}{{template \"x\" .}}']\n"), []string{
			`set.yaml:4: template.args[0]: invalid template: {{define}} and {{block}} are not supported`}},
		{"template call", one(base + "  env: {A: '{{template \"y\"}}'}\n"), []string{
			`set.yaml:4: template.env.A: invalid template: {{template}} is not supported`}},
		{"template error quoting several lines", one(base + "  args: [\"{{`a\\nb` | nope}}\"]\n"), []string{
			`set.yaml:4: template.args[0]: invalid template: function "nope" not defined`}},

		// Init containers.
		{"init container errors", one(base + "  initContainers:\n  - {name: '0', image: x}\n  - {name: setup}\n  - {name: setup, image: 'a b'}\n"), []string{
			`set.yaml:5: template.initContainers[0].name: "0" must contain a letter or '-', not only digits`,
			`set.yaml:6: template.initContainers[1].image: is required`,
			`set.yaml:7: template.initContainers[2].name: "setup" is already used by template.initContainers[1]`,
			`set.yaml:7: template.initContainers[2].image: "a b" is not a valid image reference: invalid reference format`}},

		// The file's shape.
		{"unknown field", one(base + "replica: 3\n"), []string{
			`set.yaml:4: unknown field "replica" (did you mean "replicas"?)`}},
		{"unknown nested field", one(base + "  envFrom: [x]\n"), []string{
			`set.yaml:4: template: unknown field "envFrom"`}},
		{"wrong type", one(base + "  command: sh -c true\n"), []string{
			`set.yaml:4: template.command: expected a list, got "sh -c true"`}},
		{"duplicate key", one(base + "name: db\n"), []string{
			`set.yaml:4: key "name" is already defined at line 1`}},
		{"unclosed flow mapping", one("name: web\ntemplate: {image: x\n"), []string{
			`set.yaml:2: did not find expected ',' or '}'`}},
		{"bad indentation", one("name: web\ntemplate:\n  image: x\n bad: 1\n"), []string{
			`set.yaml:4: did not find expected key`}},
		{"sequence then mapping", one("- a\nb: c\n"), []string{
			`set.yaml:2: did not find expected '-' indicator`}},
		{"not a mapping", one("- web\n"), []string{
			`set.yaml:1: expected a mapping describing a set, got a list`}},
		{"required variable", one("name: web\ntemplate:\n  image: ${IMAGE:?set IMAGE}\n"), []string{
			`set.yaml:3: template.image: required variable IMAGE is missing a value: set IMAGE`}},
		{"anchor bomb", one(anchorBomb()), []string{
			`set.yaml:1: the document expands to more than 100000 values through its aliases (an anchor bomb?)`}},
		{"10 MB file", one(base + "# " + strings.Repeat("x", 10<<20) + "\n"), []string{
			`set.yaml: larger than 1024 KiB: not a set file`}},
		{"no set", one("# nothing\n"), []string{
			`set.yaml: no sets defined`}},

		// Every document's and every file's problems, not only the first's.
		{"errors in several documents and files", []file{
			{"a.yaml", "name: a\nreplicas: -1\ntemplate: {image: x}\n---\nname: b\ntemplate: {image: x, restartPolicy: maybe}\n"},
			{"b.yaml", "name: c\ntemplate: {image: x}\nminReadySeconds: -5\n"},
		}, []string{
			`a.yaml:2: replicas: must be >= 0, got -1`,
			`a.yaml:6: template.restartPolicy: "maybe" must be one of no, always, unless-stopped, on-failure, on-failure:N`,
			`b.yaml:3: minReadySeconds: must be >= 0, got -5`}},
	}
	if len(tests) < 40 {
		t.Fatalf("%d invalid inputs", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := loadInvalid(t, tt.files)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// loadInvalid loads files as `ostset up -f ... -f ...` does (each file, then
// the sets together) and returns the error lines, with file names relative.
func loadInvalid(t *testing.T, files []file) []string {
	t.Helper()
	dir := t.TempDir()
	var sets []Set
	var lines []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.src), 0o600); err != nil {
			t.Fatal(err)
		}
		ss, err := Load(path, nil)
		if err != nil {
			lines = append(lines, strings.Split(err.Error(), "\n")...)
		}
		sets = append(sets, ss...)
	}
	if err := CheckSets(sets); err != nil {
		lines = append(lines, strings.Split(err.Error(), "\n")...)
	}
	for i := range lines {
		lines[i] = strings.ReplaceAll(lines[i], dir+string(filepath.Separator), "")
	}
	return lines
}

// Inputs near the edges that are valid: a partition above the replica count
// holds a rollout back, as in Kubernetes; the largest set with a template over
// all its peers loads; x- keys are ignored wherever a field name goes.
func TestEdgeInputsAccepted(t *testing.T) {
	for name, src := range map[string]string{
		"partition above replicas": base + "replicas: 2\nupdateStrategy: {rollingUpdate: {partition: 5}}\n",
		"largest set, templated":   "name: web\nreplicas: 1000\nordinals: {start: 1000000000}\ntemplate:\n  image: x\n  args: ['{{range $i, $p := .Peers}}{{if $i}},{{end}}{{$p.Host}}{{end}}', '{{index .Ordinals (len .Peers | printf \"%d\" | len)}}']\n",
		"x- keys":                  "x-a: 1\nname: web\ntemplate:\n  x-b: {c: d}\n  image: x\n  healthcheck: {x-c: 1, test: [NONE]}\n",
		"image by digest and ID":   "name: web\ntemplate:\n  image: ghcr.io/o/r:1@sha256:" + strings.Repeat("a", 64) + "\n  initContainers: [{name: i, image: " + strings.Repeat("b", 64) + "}]\n",
	} {
		if _, err := Parse("set.yaml", []byte(src), nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
