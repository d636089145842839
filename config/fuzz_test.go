package config

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Fuzz targets: `go test -fuzz FuzzParse ./config` (and FuzzInterpolate). Their
// seeds and any input that once failed live in testdata/fuzz.

var fuzzEnv = map[string]string{"IMAGE": "redis:7", "N": "3", "EMPTY": ""}

func fuzzLookup(k string) (string, bool) {
	v, ok := fuzzEnv[k]
	return v, ok
}

// A set file never panics the parser, and every rejection names file:line.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"name: web\ntemplate: {image: x}\n",
		"name: web\nreplicas: ${N}\ntemplate:\n  image: ${IMAGE}\n  env: {A: '{{.Ordinal}}'}\n",
		"x-a: &a {image: x}\nname: web\ntemplate: *a\n---\nname: db\ntemplate: {image: y}\n",
		"name: web\ntemplate: {image: x, healthcheck: {test: [CMD, 'true'], interval: 2s}}\nvolumeClaimTemplates: [{name: data, mountPath: /data}]\n",
		"a: &a [*a]\n",
		"name: web\nupdateStrategy: {rollingUpdate: {partition: 2, maxUnavailable: 50%}}\ntemplate: {image: x, ports: [{containerPort: 80, hostPort: 8080}]}\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		sets, err := Parse("set.yaml", []byte(data), fuzzLookup)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !fuzzParseLineRe.MatchString(line) {
					t.Fatalf("error line without file:line: %q", line)
				}
			}
			return
		}
		for _, s := range sets {
			if err := s.Validate(); err != nil {
				t.Fatalf("a parsed set does not validate: %v", err)
			}
			_ = s.RevisionSpec("sha256:x").Hash()
		}
	})
}

// Interpolation never panics, and a string without '$' comes back unchanged.
func FuzzInterpolate(f *testing.F) {
	for _, seed := range []string{"${IMAGE}", "$N", "${MISSING:-d}", "${MISSING:?boom}", "$$x", "${", "${A:-${B:-c}}", "plain"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := interpolate(s, fuzzLookup)
		if err == nil && !strings.Contains(s, "$") && out != s {
			t.Fatalf("interpolate(%q) = %q", s, out)
		}
	})
}

// fuzzParseLineRe is one rejection of a set file: "set.yaml:LINE: message",
// or "set.yaml: message" for the file as a whole (no set in it).
var fuzzParseLineRe = regexp.MustCompile(`^set\.yaml:(\d+:)? \S`)

// fuzzFieldLineRe is one rejection of a set field, without a file.
var fuzzFieldLineRe = regexp.MustCompile(`^template\.[A-Za-z0-9_.\[\]-]+: \S`)

// Per-replica templates ({{...}}): validation refuses a template that would
// fail for any replica, each refusal is one line naming the field (and, when
// read from a file, file:line), and a template that validates expands for
// every replica, to a bounded string, the same each time, and to a valid
// mount target where it is one.
func FuzzExpand(f *testing.F) {
	for _, seed := range []string{
		"{{.Name}}", "{{.Ordinal}}", "{{.Nope}}", "{{", "{{end}}", "{{range .Peers}}{{.Host}},{{end}}",
		"{{index .Peers 3}}", "{{if eq .Ordinal 2}}{{index .Ordinals 9}}{{end}}", `{{printf "%999999d" 1}}`,
		"{{range .Peers}}{{range $.Peers}}{{.Name}}{{end}}{{end}}", "{{`a\nb` | x}}", "{{if eq .Ordinal 1}}..{{end}}",
		"{{$x := .Ordinal}}{{$x}}", "{{.Peers | len}}", "{{slice .Name 1}}", "{{call .Set}}",
	} {
		f.Add(seed, uint8(3), uint16(0))
	}
	f.Fuzz(func(t *testing.T, tmpl string, replicas uint8, start uint16) {
		n, first := int(replicas%20), int(start%1000)
		s := Set{Name: "web", Replicas: &n, Ordinals: Ordinals{Start: first}, Template: Template{
			Image: "x", Args: []string{tmpl}, Env: map[string]string{"A": tmpl},
			VolumeMounts: []VolumeMount{{Source: "v", Target: "/d/" + tmpl}},
		}}
		err := s.Validate()
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !fuzzFieldLineRe.MatchString(line) {
					t.Fatalf("rejection not one line naming the field: %q", line)
				}
			}
		} else {
			s.ApplyDefaults()
			for ord := s.FirstOrdinal(); ord < max(s.EndOrdinal(), first+1); ord++ {
				v := s.ReplicaVars(s.ServiceName, ord)
				got, err := Expand(s.Template, v)
				if err != nil {
					t.Fatalf("replica %d: a validated template fails: %v", ord, err)
				}
				again, _ := Expand(s.Template, v)
				if !reflect.DeepEqual(got, again) {
					t.Fatalf("replica %d: two expansions differ", ord)
				}
				if len(got.Args[0]) > MaxExpandedLength {
					t.Fatalf("replica %d: expanded to %d bytes", ord, len(got.Args[0]))
				}
				if err := mountTargetError(got.VolumeMounts[0].Target); err != nil {
					t.Fatalf("replica %d: a validated mount target: %v", ord, err)
				}
			}
		}
		// The same template read from a set file: the same verdict, and every
		// line names the file and line. ('$' would be interpolated first.)
		if strings.Contains(tmpl, "$") || !utf8.ValidString(tmpl) {
			return
		}
		doc, mErr := yaml.Marshal(map[string]any{"name": "web", "replicas": n, "ordinals": map[string]int{"start": first},
			"template": map[string]any{"image": "x", "args": []string{tmpl}, "env": map[string]string{"A": tmpl},
				"volumeMounts": []map[string]string{{"source": "v", "target": "/d/" + tmpl}}}})
		var check any
		if mErr != nil || yaml.Unmarshal(doc, &check) != nil {
			return // yaml does not read back all it writes ("\n0" in a list)
		}
		_, pErr := Parse("set.yaml", doc, nil)
		if (pErr == nil) != (err == nil) {
			t.Fatalf("Parse says %v, Validate says %v", pErr, err)
		}
		if pErr != nil {
			for _, line := range strings.Split(pErr.Error(), "\n") {
				if !fuzzFileLineRe.MatchString(line) {
					t.Fatalf("rejection not one line naming file:line and the field: %q", line)
				}
			}
		}
	})
}

var fuzzFileLineRe = regexp.MustCompile(`^set\.yaml:\d+: template\.[A-Za-z0-9_.\[\]-]+: \S`)
