package docker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The context sent to the engine leaves out what .dockerignore excludes, but
// never the Dockerfile nor .dockerignore, as the docker CLI does.
func TestDockerignore(t *testing.T) {
	dir := t.TempDir()
	if got, err := dockerignore(dir, "Dockerfile"); err != nil || got != nil {
		t.Errorf("without .dockerignore: %q %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".dockerignore"), []byte("# comment\nnode_modules\n*.log\nbuild/Dockerfile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := dockerignore(dir, "build/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"node_modules", "*.log", "build/Dockerfile", "!build/Dockerfile", "!.dockerignore"}; !slices.Equal(got, want) {
		t.Errorf("patterns %q, want %q", got, want)
	}
}

func TestReadBuild(t *testing.T) {
	var lines []string
	id, err := readBuild(strings.NewReader(`{"stream":"Step 1/2 : FROM x\n"}
{"stream":" ---> abc\n"}
{"aux":{"ID":"sha256:123"}}
{"stream":"Successfully built 123\n"}
`), func(l string) { lines = append(lines, l) })
	if err != nil || id != "sha256:123" || len(lines) != 3 || lines[1] != " ---> abc" {
		t.Errorf("id %q err %v lines %q", id, err, lines)
	}
	_, err = readBuild(strings.NewReader(`{"stream":"Step 1/2 : FROM nope\n"}
{"errorDetail":{"message":"pull access denied"},"error":"pull access denied"}
`), nil)
	if err == nil || err.Error() != "pull access denied" {
		t.Errorf("err %v, want the engine's words", err)
	}
}
