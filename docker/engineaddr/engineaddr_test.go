package engineaddr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// store writes a fake docker config directory: config.json with current (when
// not ""), and one context per name → host, with TLS files for those in tls.
func store(t *testing.T, current string, hosts map[string]string, tls map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	if current != "" {
		write(t, filepath.Join(dir, "config.json"), `{"auths":{},"currentContext":"`+current+`"}`)
	}
	for name, host := range hosts {
		meta, err := json.Marshal(map[string]any{
			"Name":      name,
			"Metadata":  map[string]any{"Description": "test"},
			"Endpoints": map[string]any{"docker": map[string]any{"Host": host, "SkipTLSVerify": strings.Contains(host, "skip")}},
		})
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "contexts", "meta", ContextID(name), "meta.json"), string(meta))
		for _, f := range tls[name] {
			write(t, filepath.Join(dir, "contexts", "tls", ContextID(name), "docker", f), "x")
		}
	}
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func envOf(goos, home string, vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, Home: home, GOOS: goos}
}

// The docker CLI's store names a context's directory by the SHA-256 of its
// name (the value `docker context inspect` shows as Storage.MetadataPath).
func TestContextIDIsSHA256OfName(t *testing.T) {
	// sha256("default") as printed by `printf default | sha256sum`.
	if got := ContextID("default"); got != "37a8eec1ce19687d132fe29051dca629d164e2c4958ba141d5f4133a33f0688f" {
		t.Fatalf("ContextID(default) = %q", got)
	}
}

func TestResolveOrder(t *testing.T) {
	hosts := map[string]string{"cur": "unix:///cur.sock", "env": "unix:///env.sock", "flag": "tcp://10.0.0.1:2375"}
	for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
		def := DefaultHost(goos)
		cases := []struct {
			name                string
			current, flag       string
			vars                map[string]string
			host, context, from string
			fromEnv             bool
		}{
			{"nothing set: the default socket", "", "", nil, def, DefaultContext, FromDefaultSocket, true},
			{"currentContext", "cur", "", nil, "unix:///cur.sock", "cur", FromConfig, false},
			{"DOCKER_CONTEXT over currentContext", "cur", "", map[string]string{"DOCKER_CONTEXT": "env"}, "unix:///env.sock", "env", FromContextEnv, false},
			{"DOCKER_HOST over DOCKER_CONTEXT and currentContext", "cur", "", map[string]string{"DOCKER_CONTEXT": "env", "DOCKER_HOST": "tcp://h:1"}, "tcp://h:1", DefaultContext, FromHost, true},
			{"--context over DOCKER_HOST", "cur", "flag", map[string]string{"DOCKER_CONTEXT": "env", "DOCKER_HOST": "tcp://h:1"}, "tcp://10.0.0.1:2375", "flag", FromFlag, false},
			{"current context default: the default socket", DefaultContext, "", nil, def, DefaultContext, FromConfig, true},
			{"--context default with DOCKER_HOST: DOCKER_HOST", "cur", DefaultContext, map[string]string{"DOCKER_HOST": "tcp://h:1"}, "tcp://h:1", DefaultContext, FromFlag, true},
		}
		for _, c := range cases {
			t.Run(goos+"/"+c.name, func(t *testing.T) {
				dir := store(t, c.current, hosts, nil)
				vars := map[string]string{"DOCKER_CONFIG": dir}
				for k, v := range c.vars {
					vars[k] = v
				}
				ep, err := Resolve(c.flag, envOf(goos, "/nohome", vars))
				if err != nil {
					t.Fatal(err)
				}
				if ep.Host != c.host || ep.Context != c.context || ep.From != c.from || ep.FromEnv != c.fromEnv || ep.TLS != nil {
					t.Fatalf("got %+v, want host %s context %s from %s fromEnv %v", ep, c.host, c.context, c.from, c.fromEnv)
				}
			})
		}
	}
}

func TestDefaultHostPerGOOS(t *testing.T) {
	for goos, want := range map[string]string{
		"linux": "unix:///var/run/docker.sock", "darwin": "unix:///var/run/docker.sock",
		"windows": "npipe:////./pipe/docker_engine",
	} {
		if got := DefaultHost(goos); got != want {
			t.Errorf("DefaultHost(%s) = %s, want %s", goos, got, want)
		}
	}
}

// Without DOCKER_CONFIG the store is ~/.docker, as for docker.
func TestConfigDirIsHomeDotDocker(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".docker")
	write(t, filepath.Join(dir, "config.json"), `{"currentContext":"cur"}`)
	meta := `{"Name":"cur","Endpoints":{"docker":{"Host":"unix:///home.sock"}}}`
	write(t, filepath.Join(dir, "contexts", "meta", ContextID("cur"), "meta.json"), meta)
	ep, err := Resolve("", envOf("linux", home, nil))
	if err != nil {
		t.Fatal(err)
	}
	if ep.Host != "unix:///home.sock" || ep.Config != filepath.Join(dir, "config.json") {
		t.Fatalf("got %+v", ep)
	}
}

func TestContextTLSFiles(t *testing.T) {
	hosts := map[string]string{"full": "tcp://a:2376", "caonly": "tcp://b:2376", "skip": "tcp://skip:2376", "plain": "tcp://c:2375"}
	tlsFiles := map[string][]string{"full": {"ca.pem", "cert.pem", "key.pem"}, "caonly": {"ca.pem"}}
	dir := store(t, "", hosts, tlsFiles)
	tlsDir := func(name string) string { return filepath.Join(dir, "contexts", "tls", ContextID(name), "docker") }
	for name, want := range map[string]*TLSFiles{
		"full":   {CA: filepath.Join(tlsDir("full"), "ca.pem"), Cert: filepath.Join(tlsDir("full"), "cert.pem"), Key: filepath.Join(tlsDir("full"), "key.pem")},
		"caonly": {CA: filepath.Join(tlsDir("caonly"), "ca.pem")},
		"skip":   {SkipVerify: true},
		"plain":  nil,
	} {
		ep, err := Resolve(name, envOf("linux", "/nohome", map[string]string{"DOCKER_CONFIG": dir}))
		if err != nil {
			t.Fatal(err)
		}
		if (ep.TLS == nil) != (want == nil) || ep.TLS != nil && *ep.TLS != *want {
			t.Errorf("%s: TLS %+v, want %+v", name, ep.TLS, want)
		}
	}
}

func TestResolveErrorsSayWhere(t *testing.T) {
	dir := store(t, "gone", map[string]string{"ok": "unix:///ok.sock"}, nil)
	env := func(vars map[string]string) Env {
		vars["DOCKER_CONFIG"] = dir
		return envOf("linux", "/nohome", vars)
	}
	for _, c := range []struct {
		flag string
		vars map[string]string
		want []string
	}{
		{"", map[string]string{}, []string{`docker context "gone"`, "currentContext in " + filepath.Join(dir, "config.json"), "not found"}},
		{"", map[string]string{"DOCKER_CONTEXT": "nope"}, []string{`docker context "nope"`, "from DOCKER_CONTEXT", "not found"}},
		{"nope", map[string]string{}, []string{`docker context "nope"`, "from --context", "not found"}},
	} {
		_, err := Resolve(c.flag, env(c.vars))
		if err == nil {
			t.Fatalf("%v %v: no error", c.flag, c.vars)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
	bad := t.TempDir()
	write(t, filepath.Join(bad, "config.json"), `{"currentContext":`)
	if _, err := Resolve("", envOf("linux", "/nohome", map[string]string{"DOCKER_CONFIG": bad})); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "config.json")) {
		t.Errorf("a broken config.json: %v", err)
	}
}

func TestEndpointStringSaysHowChosen(t *testing.T) {
	for _, c := range []struct {
		ep   Endpoint
		want string
	}{
		{Endpoint{Host: "tcp://h:1", Context: DefaultContext, From: FromHost}, "tcp://h:1 (from DOCKER_HOST)"},
		{Endpoint{Host: "unix:///var/run/docker.sock", Context: DefaultContext, From: FromDefaultSocket}, "unix:///var/run/docker.sock (the default socket"},
		{Endpoint{Host: "unix:///c.sock", Context: "colima", From: FromConfig, Config: "/h/.docker/config.json"}, `unix:///c.sock (docker context "colima", current in /h/.docker/config.json`},
		{Endpoint{Host: "unix:///c.sock", Context: "colima", From: FromContextEnv}, `unix:///c.sock (docker context "colima", from DOCKER_CONTEXT)`},
		{Endpoint{Host: "unix:///c.sock", Context: "colima", From: FromFlag}, `unix:///c.sock (docker context "colima", from --context)`},
	} {
		if got := c.ep.String(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want prefix %q", c.ep, got, c.want)
		}
	}
}
