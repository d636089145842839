package config

import (
	"strings"
	"testing"
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
				if !strings.HasPrefix(line, "set.yaml:") {
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
