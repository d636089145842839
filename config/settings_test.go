package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseContainerSettings(t *testing.T) {
	src := `name: db
template:
  image: postgres
  stopSignal: SIGINT
  shmSize: 256m
  ulimits:
    nofile: {soft: 1024, hard: 65536}
    memlock: -1
  sysctls: {net.core.somaxconn: "1024"}
  tmpfs: ["/run:size=64m,mode=1777", /tmp]
  capAdd: [SYS_NICE]
  capDrop: [NET_RAW]
  init: true
  extraHosts: ["backup:10.0.0.9", "gw=host-gateway"]
`
	sets, err := Parse("set.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := sets[0].Template
	want := Template{Image: "postgres", StopSignal: "SIGINT", ShmSize: "256m", RestartPolicy: DefaultRestartPolicy,
		Ulimits:    map[string]Ulimit{"nofile": {Soft: 1024, Hard: 65536}, "memlock": {Soft: -1, Hard: -1}},
		Sysctls:    map[string]string{"net.core.somaxconn": "1024"},
		Tmpfs:      []string{"/run:size=64m,mode=1777", "/tmp"},
		CapAdd:     []string{"SYS_NICE"},
		CapDrop:    []string{"NET_RAW"},
		Init:       ptr(true),
		ExtraHosts: []string{"backup:10.0.0.9", "gw=host-gateway"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("template\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseUlimitShapes(t *testing.T) {
	for _, tt := range []struct{ value, want string }{
		{"{nofile: {soft: 1024}}", `set.yaml:4: template.ulimits.nofile: a limit needs both soft and hard (or one number for both)`},
		{"{nofile: lots}", `set.yaml:4: template.ulimits.nofile: "lots" is not an integer`},
		{"{nofile: {soft: 1, hard: 2, max: 3}}", `set.yaml:4: template.ulimits.nofile: unknown field "max" (a limit has soft and hard)`},
		{"{nofile: [1, 2]}", `set.yaml:4: template.ulimits.nofile: expected a number or a mapping with soft and hard`},
		{"{nofile: 1, bogus: 2}", `set.yaml:4: template.ulimits.bogus: unknown limit "bogus" (use core, cpu, data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending, stack)`},
	} {
		src := "name: db\ntemplate:\n  image: x\n  ulimits: " + tt.value + "\n"
		_, err := Parse("set.yaml", []byte(src), nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ulimits: %s: error %v, want %s", tt.value, err, tt.want)
		}
	}
}

func TestValidateContainerSettings(t *testing.T) {
	ok := func(s *Set) {
		s.Template.StopSignal = "rtmin+3"
		s.Template.ShmSize = "1g"
		s.Template.Ulimits = map[string]Ulimit{"nofile": {Soft: 1024, Hard: -1}, "core": {Soft: 0, Hard: 0}}
		s.Template.Sysctls = map[string]string{"net.ipv4.tcp_keepalive_time": "60", "kernel.shmmax": "1073741824", "fs.mqueue.msg_max": "100"}
		s.Template.Tmpfs = []string{"/run:size=64m,mode=1777,noexec,nosuid,uid=999,gid=999", "/var/run/postgresql"}
		s.Template.CapAdd = []string{"all"}
		s.Template.CapDrop = []string{"cap_net_raw", "MKNOD"}
		s.Template.Init = ptr(false)
		s.Template.ExtraHosts = []string{"a.example:10.0.0.1", "v6=[::1]", "gw:host-gateway"}
	}
	s := validSet()
	ok(&s)
	if err := s.Validate(); err != nil {
		t.Fatalf("valid settings refused: %v", err)
	}
	s = validSet()
	s.Template.StopSignal = "SIGWHAT"
	s.Template.ShmSize = "lots"
	s.Template.Ulimits = map[string]Ulimit{"nofile": {Soft: 2, Hard: 1}, "nproc": {Soft: -2, Hard: 1}, "stack": {Soft: -1, Hard: 10}}
	s.Template.Sysctls = map[string]string{"vm.swappiness": "1", "net.core.somaxconn": ""}
	s.Template.Tmpfs = []string{"run", "/run:size=lots", "/run:huge", "/data"}
	s.Template.CapAdd = []string{"NET_ADMINX"}
	s.Template.CapDrop = []string{"", "KILL"}
	s.Template.ExtraHosts = []string{"noip", "db:999.1.1.1", ":10.0.0.1"}
	want := []string{
		`template.stopSignal: "SIGWHAT" is not a signal (like SIGTERM, SIGINT, SIGQUIT or a number)`,
		`template.shmSize: "lots" is not a memory size (like 256Mi, 1Gi, 512m or a number of bytes)`,
		"template.ulimits.nofile: soft limit 2 is above the hard limit 1",
		"template.ulimits.nproc: limits must be >= 0, or -1 for unlimited",
		"template.ulimits.stack: an unlimited (-1) soft limit needs an unlimited hard limit, got 10",
		`template.sysctls.net.core.somaxconn: needs a value`,
		`template.sysctls.vm.swappiness: "vm.swappiness" is not namespaced per container: only net.*, fs.mqueue.* and the kernel IPC settings (kernel.msgmax, kernel.sem, kernel.shmmax, ...) can be set`,
		`template.tmpfs[0]: "run" must start with an absolute path (like /run or /run:size=64m)`,
		`template.tmpfs[1]: "/run:size=lots": invalid value for tmpfs option size`,
		`template.tmpfs[2]: "/run:huge": unknown tmpfs option "huge" (use size, mode, uid, gid, nr_inodes, nr_blocks, mpol or a flag such as noexec)`,
		`template.capAdd[0]: "NET_ADMINX" is not a Linux capability (like NET_ADMIN, SYS_NICE or ALL)`,
		`template.capDrop[0]: "" is not a Linux capability (like NET_ADMIN, SYS_NICE or ALL)`,
		`template.extraHosts[0]: "noip" must be HOST:IP or HOST=IP`,
		`template.extraHosts[1]: "db:999.1.1.1": "999.1.1.1" is not an IP address or host-gateway`,
		`template.extraHosts[2]: ":10.0.0.1" must be HOST:IP or HOST=IP`,
		`volumeClaimTemplates[0].mountPath: "/data" is already mounted by template.tmpfs[3]`,
	}
	err := s.Validate()
	var got []string
	if err != nil {
		got = strings.Split(err.Error(), "\n")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCanonicalSettings(t *testing.T) {
	for in, want := range map[string]string{"INT": "SIGINT", "sigquit": "SIGQUIT", "SIGRTMAX-2": "SIGRTMAX-2", "15": "15"} {
		if got, err := CanonicalSignal(in); err != nil || got != want {
			t.Errorf("CanonicalSignal(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "65", "015", "RTMIN+16", ""} {
		if _, err := CanonicalSignal(bad); err == nil {
			t.Errorf("CanonicalSignal(%q) accepted", bad)
		}
	}
	if got := canonicalCapabilities([]string{"sys_nice", "CAP_IPC_LOCK", "SYS_NICE", "all"}); !reflect.DeepEqual(got, []string{"ALL", "CAP_IPC_LOCK", "CAP_SYS_NICE"}) {
		t.Errorf("canonicalCapabilities = %q", got)
	}
	if h, ip, err := ParseExtraHost("v6=[::1]"); err != nil || h != "v6" || ip != "::1" {
		t.Errorf("ParseExtraHost = %q %q %v", h, ip, err)
	}
	if target, opts, err := ParseTmpfs("/run:size=64m,noexec"); err != nil || target != "/run" || opts != "size=64m,noexec" {
		t.Errorf("ParseTmpfs = %q %q %v", target, opts, err)
	}
}

func TestValidateClaimOwner(t *testing.T) {
	s := validSet()
	s.VolumeClaimTemplates[0].Owner = "999:999"
	s.VolumeClaimTemplates[1].Owner = "0:0"
	if err := s.Validate(); err != nil {
		t.Fatalf("valid owners refused: %v", err)
	}
	for _, bad := range []string{"postgres", "999", "999:", "1:-1", "2147483648:0", " 1:1"} {
		s.VolumeClaimTemplates[0].Owner = bad
		want := `volumeClaimTemplates[0].owner: "` + bad + `" must be UID:GID, two numbers from 0 to 2147483647 (like "999:999")`
		if err := s.Validate(); err == nil || err.Error() != want {
			t.Errorf("owner %q: %v, want %s", bad, err, want)
		}
	}
}
