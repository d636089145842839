package main

import (
	"github.com/ostset/ostset/internal/probebin"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The binary a probe mounts is found by its real path, refused with a clear
// message when it is gone or a go test binary, and flagged when it needs a
// dynamic loader.
func TestCheckOwnBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ELF only")
	}
	dir := t.TempDir()
	static := filepath.Join(dir, "ostset")
	build := exec.Command("go", "build", "-o", static, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(static, link); err != nil {
		t.Fatal(err)
	}
	bin, err := probebin.CheckOwnBinary(link)
	if err != nil || bin.Path != static || bin.Dynamic {
		t.Errorf("static build: %+v, %v; want %s, not dynamic", bin, err, static)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if real, err := filepath.EvalSymlinks(sh); err == nil {
			if bin, err := probebin.CheckOwnBinary(real); err == nil && !bin.Dynamic {
				t.Logf("%s is static here; the dynamic case is not checked", real)
			} else if err != nil {
				t.Errorf("%s: %v", real, err)
			}
		}
	}
	if _, err := probebin.CheckOwnBinary(filepath.Join(dir, "gone")); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("missing binary: %v", err)
	}
	self, _ := os.Executable()
	if _, err := probebin.CheckOwnBinary(self); err == nil || !strings.Contains(err.Error(), "go test binary") {
		t.Errorf("test binary: %v", err)
	}
}
