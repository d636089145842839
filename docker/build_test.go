package docker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/registry"
	"github.com/moby/moby/client"
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

// A build sends the credentials of the Docker config (X-Registry-Config), so
// that a FROM on a private registry pulls as 'docker build' would.
func TestBuildSendsRegistryCredentials(t *testing.T) {
	dockerConfig(t, `{"auths": {"127.0.0.1:31700": {"auth": "`+base64.StdEncoding.EncodeToString([]byte("cx:secret"))+`"}}}`)
	sent := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/build") {
			sent <- req.Header.Get("X-Registry-Config")
			_, _ = io.WriteString(w, `{"aux":{"ID":"sha256:1"}}`+"\n")
			return
		}
		w.Header().Set("Api-Version", "1.41")
	}))
	defer srv.Close()
	cli, err := client.New(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithAPIVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM 127.0.0.1:31700/base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Runtime{cli: cli}
	if _, err := r.BuildImage(context.Background(), BuildOptions{Image: "x", Context: dir, Dockerfile: "Dockerfile"}, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.URLEncoding.DecodeString(<-sent)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]registry.AuthConfig
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if a := got["127.0.0.1:31700"]; a.Username != "cx" || a.Password != "secret" {
		t.Errorf("X-Registry-Config %s: want the config's credentials for 127.0.0.1:31700", raw)
	}
}
