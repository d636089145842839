//go:build integration

package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const settingsSpec = `
name: {{SET}}
replicas: 1
network: {{NET}}
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    retries: 1
  stopSignal: int
  shmSize: 256m
  ulimits:
    nofile: {soft: 1024, hard: 4096}
    nproc: 512
  sysctls:
    net.core.somaxconn: "1000"
  tmpfs: ["/run:size=64m,mode=1770", /scratch]
  capAdd: [sys_nice]
  capDrop: [CAP_NET_RAW]
  init: true
  extraHosts: ["backup:10.0.0.9", "gateway=host-gateway"]
`

// Each container setting reaches the engine (inspect) and the container
// itself (/proc, /etc/hosts) on the engine the tests run on (API 1.41): none
// is dropped on the way.
func TestContainerSettings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustOstset("up", "-f", h.writeSpec(settingsSpec, imageV1))
	name := h.name(0)

	var infos []struct {
		Config     struct{ StopSignal string }
		HostConfig struct {
			ShmSize int64
			Ulimits []struct {
				Name       string
				Soft, Hard int64
			}
			Sysctls    map[string]string
			Tmpfs      map[string]string
			CapAdd     []string
			CapDrop    []string
			Init       *bool
			ExtraHosts []string
		}
	}
	if err := json.Unmarshal([]byte(h.docker("inspect", name)), &infos); err != nil || len(infos) != 1 {
		t.Fatalf("inspect %s: %v", name, err)
	}
	c, hc := infos[0].Config, infos[0].HostConfig
	ulimits := map[string]string{}
	for _, u := range hc.Ulimits {
		ulimits[u.Name] = fmt.Sprintf("%d/%d", u.Soft, u.Hard)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"stop signal", c.StopSignal, "SIGINT"},
		{"shm size", hc.ShmSize, int64(256 << 20)},
		{"ulimits", ulimits, map[string]string{"nofile": "1024/4096", "nproc": "512/512"}},
		{"sysctls", hc.Sysctls, map[string]string{"net.core.somaxconn": "1000"}},
		{"tmpfs", hc.Tmpfs, map[string]string{"/run": "size=64m,mode=1770", "/scratch": ""}},
		{"cap add", hc.CapAdd, []string{"CAP_SYS_NICE"}},
		{"cap drop", hc.CapDrop, []string{"CAP_NET_RAW"}},
		{"init", hc.Init != nil && *hc.Init, true},
		{"extra hosts", hc.ExtraHosts, []string{"backup:10.0.0.9", "gateway:host-gateway"}},
	}
	for _, ck := range checks {
		if fmt.Sprint(ck.got) != fmt.Sprint(ck.want) {
			t.Errorf("inspect %s: %v, want %v", ck.what, ck.got, ck.want)
		}
	}

	// Inside the container, as a process there sees them.
	cat := func(file string) string { return h.docker("exec", name, "/web", "cat", file) }
	if got := strings.TrimSpace(cat("/proc/sys/net/core/somaxconn")); got != "1000" {
		t.Errorf("net.core.somaxconn in the container: %q", got)
	}
	if got := cat("/proc/1/cmdline"); !strings.Contains(got, "docker-init") {
		t.Errorf("PID 1 is %q, want docker-init", got)
	}
	hosts := cat("/etc/hosts")
	if !strings.Contains(hosts, "10.0.0.9\tbackup") || !strings.Contains(hosts, "\tgateway") {
		t.Errorf("/etc/hosts:\n%s", hosts)
	}
	if got := limitLine(cat("/proc/1/limits"), "Max open files"); !slices.Equal(got, []string{"1024", "4096"}) {
		t.Errorf("open files limit %v, want 1024 4096", got)
	}
	mounts := cat("/proc/mounts")
	for _, want := range [][]string{{"/run", "size=65536k", "mode=1770"}, {"/scratch"}, {"/dev/shm", "size=262144k"}} {
		if line := mountLine(mounts, want[0]); !strings.HasPrefix(line, "tmpfs") && !strings.HasPrefix(line, "shm") || !containsAll(line, want[1:]) {
			t.Errorf("mount %s: %q, want a tmpfs with %v", want[0], line, want[1:])
		}
	}
	caps := capEff(t, cat("/proc/self/status"))
	const capNetRaw, capSysNice = 13, 23
	if caps&(1<<capSysNice) == 0 || caps&(1<<capNetRaw) != 0 {
		t.Errorf("effective capabilities %#x: want SYS_NICE and not NET_RAW", caps)
	}
}

func limitLine(limits, name string) []string {
	for _, l := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(l, name); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				return f[:2]
			}
		}
	}
	return nil
}

func mountLine(mounts, target string) string {
	for _, l := range strings.Split(mounts, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == target {
			return l
		}
	}
	return ""
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func capEff(t *testing.T, status string) uint64 {
	t.Helper()
	for _, l := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no CapEff in\n%s", status)
	return 0
}
