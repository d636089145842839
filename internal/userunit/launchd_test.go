package userunit

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDefaultPathPerGOOS(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "/x/config/systemd/user/ostset.service",
		"freebsd": "/x/config/systemd/user/ostset.service",
		"darwin":  "/Users/u/Library/LaunchAgents/io.ostset.daemon.plist",
		"windows": "",
	} {
		if got := DefaultPath(goos, "/Users/u", "/x/config"); got != want {
			t.Errorf("%s: %q, want %q", goos, got, want)
		}
	}
}

// The launchd agent runs `ostset daemon` with the state directory and docker
// variables, restarts it when it fails, and is well-formed XML whatever the
// paths hold.
func TestLaunchdPlist(t *testing.T) {
	u := &Unit{GOOS: "darwin", UID: 501, Path: "/Users/u/Library/LaunchAgents/io.ostset.daemon.plist",
		Binary: "/opt/homebrew/bin/ostset", StateDir: "/Users/u/state & <more>",
		Env: []string{"DOCKER_CONTEXT=colima", "DOCKER_CONFIG=/Users/u/.docker"}}
	text := u.Text()
	for _, want := range []string{
		"<key>Label</key>\n\t<string>io.ostset.daemon</string>",
		"<string>/opt/homebrew/bin/ostset</string>\n\t\t<string>daemon</string>\n\t\t<string>--state-dir</string>\n\t\t<string>/Users/u/state &amp; &lt;more&gt;</string>",
		"<key>DOCKER_CONTEXT</key>\n\t\t<string>colima</string>",
		"<key>SuccessfulExit</key>\n\t\t<false/>",
		"<string>/Users/u/Library/Logs/ostset-daemon.log</string>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plist lacks %q:\n%s", want, text)
		}
	}
	d := xml.NewDecoder(strings.NewReader(text))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("plist is not well-formed XML: %v", err)
			}
			break
		}
	}
}

func TestLaunchdInstallAndUninstall(t *testing.T) {
	dir := t.TempDir()
	var fake fakeSystemctl
	var out bytes.Buffer
	u := &Unit{GOOS: "darwin", UID: 501, Path: filepath.Join(dir, "Library", "LaunchAgents", Label+".plist"),
		Binary: "/usr/local/bin/ostset", Run: fake.run, Stdout: &out}
	if err := u.Install(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(u.Path); err != nil || string(data) != u.Text() {
		t.Fatalf("plist: %v\n%s", err, data)
	}
	want := []string{"launchctl bootout gui/501/io.ostset.daemon", "launchctl bootstrap gui/501 " + u.Path}
	if !slices.Equal(fake.ran, want) {
		t.Errorf("install ran %q, want %q", fake.ran, want)
	}
	fake.ran = nil
	if err := u.Uninstall(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"launchctl bootout gui/501/io.ostset.daemon"}; !slices.Equal(fake.ran, want) {
		t.Errorf("uninstall ran %q, want %q", fake.ran, want)
	}
	if _, err := os.Stat(u.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plist is still there: %v", err)
	}
}

// On Windows install changes nothing and says what to do instead.
func TestWindowsInstallSaysWhatToDo(t *testing.T) {
	var fake fakeSystemctl
	u := &Unit{GOOS: "windows", Binary: `C:\ostset\ostset.exe`, Run: fake.run, Stdout: &bytes.Buffer{}}
	for _, dry := range []bool{false, true} {
		err := u.Install(context.Background(), dry)
		if err == nil || !strings.Contains(err.Error(), `schtasks /Create /SC ONLOGON /TN ostset-daemon /TR "\"C:\ostset\ostset.exe\" daemon"`) {
			t.Errorf("dry-run %v: %v", dry, err)
		}
	}
	if len(fake.ran) != 0 {
		t.Errorf("ran %q", fake.ran)
	}
}
