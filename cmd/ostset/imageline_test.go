package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An image error points at the image: line, not at the set's name: line.
func TestImageErrorNamesTheImageLine(t *testing.T) {
	f := newFakeCLI(t)
	f.rt.Local = map[string]string{}
	file := filepath.Join(t.TempDir(), "web.yaml")
	src := "name: web\nreplicas: 1\ntemplate:\n  imagePullPolicy: Never\n  image: ostset/web:dmeo\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.run(context.Background(), "up", "-f", file)
	if want := file + ":5: template.image: ostset/web:dmeo"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("up: %v; want %q", err, want)
	}
}
