package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateConvert = flag.Bool("update-convert", false, "rewrite the golden conversions of compose files to Kubernetes")

// A compose file converted to Kubernetes keeps its secrets secret: a
// secrets: file is a Secret mounted at /run/secrets, a password in the
// environment (written in the file or taken from .env) a key of a Secret
// read through secretKeyRef, never a value in the StatefulSet; a named
// volume of a one-replica service is its claim; an image built from the
// file is named. Pinned for every public compose file by
// compose/testdata/public/*/kubernetes.golden (go test ./cmd/ostset -run
// TestConvertComposeGolden -update-convert).
func TestConvertComposeGolden(t *testing.T) {
	// The secret values of the samples that hold some: none may be written
	// as text, and a Secret must carry them.
	secretsOf := map[string][]string{
		"nginx-golang-mysql": {"db-q5n2g"},
		"postgresql-pgadmin": {"changeit"},
		"wordpress-mysql":    {"somewordpress"},
	}
	dirs, err := os.ReadDir(filepath.Join("..", "..", "compose", "testdata", "public"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir, secrets := d.Name(), secretsOf[d.Name()]
		t.Run(dir, func(t *testing.T) {
			src := filepath.Join("..", "..", "compose", "testdata", "public", dir)
			stateDir := t.TempDir()
			var stdout, stderr bytes.Buffer
			if err := Run(context.Background(), []string{"convert", "-f", filepath.Join(src, "compose.yaml"), "--state-dir", stateDir}, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			out := stdout.String()
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("the secret %q is in the manifests as text:\n%s", s, out)
				}
			}
			if len(secrets) > 0 && (!strings.Contains(out, "kind: Secret\n") || !strings.Contains(out, "secretKeyRef") && !strings.Contains(out, "secretName:")) {
				t.Errorf("no Secret referenced:\n%s", out)
			}
			// A bind mount's source is an absolute path: the checkout's
			// place is not part of what is pinned.
			abs, err := filepath.Abs(src)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(out+"# stderr\n"+strings.ReplaceAll(stderr.String(), stateDir, "STATE"), abs, "SRC")
			golden := filepath.Join(src, "kubernetes.golden")
			if *updateConvert {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("differs from %s:\n%s", golden, got)
			}
		})
	}
}
