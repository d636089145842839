package userunit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUserUnitText(t *testing.T) {
	u := &Unit{Binary: "/opt/ostset/bin/ostset", StateDir: "/srv/ostset state", Env: []string{"DOCKER_HOST=unix:///run/user/1000/docker.sock"}}
	want := `# Written by 'ostset daemon install'; 'ostset daemon uninstall' removes it.
[Unit]
Description=ostset daemon: keeps the sets of a state directory converged
Documentation=https://github.com/ostset/ostset/blob/main/docs/operating.md

[Service]
Environment=DOCKER_HOST=unix:///run/user/1000/docker.sock
ExecStart=/opt/ostset/bin/ostset daemon --state-dir "/srv/ostset state"
Restart=on-failure
RestartSec=5s

[Install]
WantedBy=default.target
`
	if got := u.Text(); got != want {
		t.Errorf("unit:\n%s\nwant:\n%s", got, want)
	}
	u = &Unit{Binary: "/usr/local/bin/ostset"}
	if got := u.Text(); !strings.Contains(got, "\nExecStart=/usr/local/bin/ostset daemon\n") || strings.Contains(got, "Environment") {
		t.Errorf("unit for the default state directory:\n%s", got)
	}
}

func TestSystemdQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/ostset": "/usr/bin/ostset",
		"/a b":            `"/a b"`,
		`/a"b`:            `"/a\"b"`,
		"/100%":           `"/100%%"`,
		"/$HOME":          `"/$$HOME"`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// fakeSystemctl records the commands a unit runs, failing the one named fail.
type fakeSystemctl struct {
	ran  []string
	fail string
}

func (f *fakeSystemctl) run(_ context.Context, name string, args ...string) error {
	line := name + " " + strings.Join(args, " ")
	f.ran = append(f.ran, line)
	if line == f.fail {
		return errors.New("failed")
	}
	return nil
}

func TestUserUnitInstallAndUninstall(t *testing.T) {
	dir := t.TempDir()
	var fake fakeSystemctl
	var out bytes.Buffer
	u := &Unit{Path: filepath.Join(dir, "systemd", "user", Name), Binary: "/usr/local/bin/ostset", Run: fake.run, Stdout: &out}
	if err := u.Install(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(u.Path)
	if err != nil || string(data) != u.Text() {
		t.Fatalf("unit file: %v\n%s", err, data)
	}
	want := []string{"systemctl --user daemon-reload", "systemctl --user enable --now ostset.service"}
	if !slices.Equal(fake.ran, want) {
		t.Errorf("install ran %q, want %q", fake.ran, want)
	}

	fake.ran = nil
	if err := u.Uninstall(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(u.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit file is still there: %v", err)
	}
	want = []string{"systemctl --user disable --now ostset.service", "systemctl --user daemon-reload"}
	if !slices.Equal(fake.ran, want) {
		t.Errorf("uninstall ran %q, want %q", fake.ran, want)
	}
	if ni := (*NotInstalledError)(nil); !errors.As(u.Uninstall(context.Background(), false), &ni) || ni.Path != u.Path {
		t.Errorf("second uninstall: %v", ni)
	}

	// A failing systemctl is an error that names the unit written.
	fake = fakeSystemctl{fail: "systemctl --user enable --now ostset.service"}
	if err := u.Install(context.Background(), false); err == nil || !strings.Contains(err.Error(), u.Path) {
		t.Errorf("install with systemctl failing: %v", err)
	}
}

// The service reaches the engine the installing command reached: its docker
// variables, or its --context, which beats DOCKER_HOST as the flag does.
func TestDockerEnvCarriesTheEngineChoice(t *testing.T) {
	vars := map[string]string{"DOCKER_HOST": "tcp://h:2376", "DOCKER_TLS_VERIFY": "1", "DOCKER_CONFIG": "/c", "HOME": "/h"}
	getenv := func(k string) string { return vars[k] }
	if got, want := strings.Join(DockerEnv("", getenv), " "), "DOCKER_HOST=tcp://h:2376 DOCKER_TLS_VERIFY=1 DOCKER_CONFIG=/c"; got != want {
		t.Errorf("no --context: %q, want %q", got, want)
	}
	if got, want := strings.Join(DockerEnv("colima", getenv), " "), "DOCKER_CONTEXT=colima DOCKER_CONFIG=/c"; got != want {
		t.Errorf("--context colima: %q, want %q", got, want)
	}
	if got := DockerEnv("", func(string) string { return "" }); len(got) != 0 {
		t.Errorf("nothing set: %q", got)
	}
}
