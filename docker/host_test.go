package docker

import (
	"github.com/ostset/ostset/docker/proclimits"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func writeProc(t *testing.T, files map[string]string) string {
	t.Helper()
	proc := t.TempDir()
	for name, text := range files {
		path := filepath.Join(proc, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return proc
}

const procLimits = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max core file size        unlimited            unlimited            bytes     
Max processes             unlimited            unlimited            processes 
Max open files            20000                20000                files     
Max locked memory         8388608              8388608              bytes     
Max pending signals       15712                15712                signals   
`

// The engine's hard limits come from its process, as this machine's dockerd
// shows them; an engine that may raise limits is bounded for nofile only.
func TestProcessLimits(t *testing.T) {
	proc := writeProc(t, map[string]string{"7/comm": "dockerd\n", "7/limits": procLimits, "7/status": "Name:\tdockerd\nCapEff:\t000001fffeffffff\n"})
	want := map[string]int64{"cpu": -1, "core": -1, "nproc": -1, "nofile": 20000, "memlock": 8388608, "sigpending": 15712}
	if got := proclimits.Of(proc, 7); !maps.Equal(got, want) {
		t.Errorf("limits %v, want %v", got, want)
	}
	proc = writeProc(t, map[string]string{"7/comm": "dockerd\n", "7/limits": procLimits, "7/status": "CapEff:\t000001ffffffffff\n", "sys/fs/nr_open": "1048576\n"})
	if got := proclimits.Of(proc, 7); !maps.Equal(got, map[string]int64{"nofile": 1048576}) {
		t.Errorf("with CAP_SYS_RESOURCE: %v", got)
	}
	proc = writeProc(t, map[string]string{"7/comm": "sleep\n", "7/limits": procLimits})
	if got := proclimits.Of(proc, 7); got != nil {
		t.Errorf("a pid that is not a dockerd: %v", got)
	}
}
