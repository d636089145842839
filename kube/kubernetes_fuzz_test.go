package kube

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

var fuzzErrorLineRe = regexp.MustCompile(`^k\.yaml(:[0-9]+)?: `)

// The Kubernetes import never panics, every rejection names the file (and
// the line, but for a file without any set), and a set it gives validates,
// hashes and expands for a replica: a manifest's text is never taken for a
// template. Seeds: the fixtures and testdata/fuzz/FuzzKubernetes.
func FuzzKubernetes(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "kubernetes", "*.yaml"))
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b), true)
		}
	}
	f.Fuzz(func(t *testing.T, data string, lenient bool) {
		l := config.Loader{Manifests: Manifests{}, Lenient: lenient, ConfigDir: "/state/v", Warn: func(m string) {
			if !fuzzErrorLineRe.MatchString(m) {
				t.Fatalf("warning without file:line: %q", m)
			}
		}}
		sets, files, err := parseWithFiles(l, "k.yaml", []byte(data))
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !fuzzErrorLineRe.MatchString(line) {
					t.Fatalf("error line without file:line: %q", line)
				}
			}
			return
		}
		for _, f := range files {
			if !strings.HasPrefix(filepath.Join(f.Dir, f.Name), "/state/v/") || strings.Contains(f.Name, "..") {
				t.Fatalf("config file outside its directory: %+v", f)
			}
		}
		for _, s := range sets {
			if err := s.Validate(); err != nil {
				t.Fatalf("an imported set does not validate: %v", err)
			}
			_ = s.RevisionSpec("sha256:x").Hash()
			if strings.Contains(data, ExportAnnotation) {
				continue // the annotation holds set-file templates
			}
			if _, err := config.Expand(s.Template, s.ReplicaVars(s.ServiceName, s.FirstOrdinal())); err != nil {
				t.Fatalf("an imported template does not expand: %v", err)
			}
		}
	})
}
