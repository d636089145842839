package docker

import (
	"github.com/ostset/ostset/docker/registryauth"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
)

// dockerConfig points DOCKER_CONFIG at a temporary directory holding
// config.json with the given content ("" for no file).
func dockerConfig(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	if content != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "config.json")
}

// credentialHelper installs docker-credential-NAME on a PATH of its own; it
// answers "get" with script's output. The platform's default helpers are
// installed too, failing, so that a test notices if one is consulted.
func credentialHelper(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, "docker-credential-"+name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"secretservice", "pass"} {
		write(d, `echo "default helper $0 consulted" >&2; exit 1`)
	}
	if name != "" {
		write(name, script)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func decodeAuth(t *testing.T, encoded string) registry.AuthConfig {
	t.Helper()
	ac, err := authconfig.Decode(encoded)
	if err != nil {
		t.Fatalf("decode %q: %v", encoded, err)
	}
	return *ac
}

func TestCredentialsFromAuths(t *testing.T) {
	credentialHelper(t, "", "")
	path := dockerConfig(t, `{"auths": {
		"127.0.0.1:5000": {"auth": "YWxpY2U6c2VjcmV0"},
		"https://index.docker.io/v1/": {"username": "hubuser", "password": "hubpass"},
		"tokens.example": {"identitytoken": "tok"}
	}}`)
	tests := []struct {
		ref  string
		host string
		want registry.AuthConfig
	}{
		{"127.0.0.1:5000/app:1", "127.0.0.1:5000", registry.AuthConfig{Username: "alice", Password: "secret", ServerAddress: "127.0.0.1:5000"}},
		{"postgres:16", "https://index.docker.io/v1/", registry.AuthConfig{Username: "hubuser", Password: "hubpass", ServerAddress: "https://index.docker.io/v1/"}},
		{"docker.io/library/redis", "https://index.docker.io/v1/", registry.AuthConfig{Username: "hubuser", Password: "hubpass", ServerAddress: "https://index.docker.io/v1/"}},
		{"tokens.example/team/app@sha256:0000000000000000000000000000000000000000000000000000000000000000", "tokens.example", registry.AuthConfig{IdentityToken: "tok", ServerAddress: "tokens.example"}},
	}
	for _, tt := range tests {
		c, err := registryauth.For(tt.ref)
		if err != nil {
			t.Fatalf("%s: %v", tt.ref, err)
		}
		if c.Host != tt.host || c.Config != path {
			t.Errorf("%s: host %q in %q, want %q in %q", tt.ref, c.Host, c.Config, tt.host, path)
		}
		if got := decodeAuth(t, c.Auth); got != tt.want {
			t.Errorf("%s: auth %+v, want %+v", tt.ref, got, tt.want)
		}
	}
	// A registry the file does not name is pulled from anonymously, without
	// asking the platform's default helper (the Docker CLI does not either).
	c, err := registryauth.For("other.example/app:1")
	if err != nil || c.Auth != "" || c.Host != "other.example" {
		t.Errorf("unlisted registry: %+v, %v; want anonymous", c, err)
	}
}

func TestCredentialsFromHelpers(t *testing.T) {
	credentialHelper(t, "ostsettest", `read host
case $host in
127.0.0.1:5000) echo '{"ServerURL":"127.0.0.1:5000","Username":"helped","Secret":"s3"}' ;;
*) echo "credentials not found in native keychain"; exit 1 ;;
esac`)
	dockerConfig(t, `{"credHelpers": {"127.0.0.1:5000": "ostsettest"}, "auths": {"127.0.0.1:5000": {"auth": "YWxpY2U6c2VjcmV0"}}}`)
	c, err := registryauth.For("127.0.0.1:5000/app:1")
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeAuth(t, c.Auth); got.Username != "helped" || got.Password != "s3" {
		t.Errorf("credHelpers: %+v, want the helper's credentials before auths", got)
	}

	dockerConfig(t, `{"credsStore": "ostsettest"}`)
	c, err = registryauth.For("127.0.0.1:5000/app:1")
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeAuth(t, c.Auth); got.Username != "helped" {
		t.Errorf("credsStore: %+v, want the store's credentials", got)
	}
	if c, err := registryauth.For("elsewhere.example/app:1"); err != nil || c.Auth != "" {
		t.Errorf("credsStore without an entry: %+v, %v; want anonymous", c, err)
	}
}

func TestCredentialsErrors(t *testing.T) {
	credentialHelper(t, "broken", `echo "keychain locked" >&2; exit 3`)
	dockerConfig(t, "")
	if c, err := registryauth.For("127.0.0.1:5000/app:1"); err != nil || c.Auth != "" {
		t.Errorf("no config file: %+v, %v; want anonymous", c, err)
	}
	path := dockerConfig(t, `{"auths": `)
	if _, err := registryauth.For("127.0.0.1:5000/app:1"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("malformed config: %v; want an error naming %s", err, path)
	}
	dockerConfig(t, `{"credHelpers": {"127.0.0.1:5000": "broken"}}`)
	if _, err := registryauth.For("127.0.0.1:5000/app:1"); err == nil || !strings.Contains(err.Error(), "keychain locked") {
		t.Errorf("failing helper: %v; want its message", err)
	}
	if _, err := registryauth.For("Not A Reference"); err == nil {
		t.Error("an invalid reference was accepted")
	}
}
