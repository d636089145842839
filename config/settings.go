package config

import (
	"fmt"
	"maps"
	"math"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The container settings of a template (stopSignal, shmSize, ulimits,
// sysctls, tmpfs, capAdd, capDrop, init, extraHosts) have docker compose's
// names and meanings. Each value is checked here, when the file is loaded, so
// that the engine neither refuses it when a replica is created nor drops it.

// Ulimit is one resource limit: a number (soft = hard) or {soft, hard}. -1
// means unlimited.
type Ulimit struct {
	Soft int `yaml:"soft" json:"soft"`
	Hard int `yaml:"hard" json:"hard"`
}

// UnmarshalYAML accepts "nofile: 65536" and "nofile: {soft: 1024, hard: 65536}".
func (u *Ulimit) UnmarshalYAML(n *yaml.Node) error {
	fail := func(format string, args ...any) error {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, fmt.Sprintf(format, args...))}}
	}
	integer := func(v *yaml.Node) (int, error) {
		i, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || err != nil {
			return 0, fail("%q is not an integer", v.Value)
		}
		return i, nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			*u = Ulimit{}
			return nil
		}
		v, err := integer(n)
		*u = Ulimit{Soft: v, Hard: v}
		return err
	case yaml.MappingNode:
		var got Ulimit
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k != "soft" && k != "hard" {
				return fail("unknown field %q (a limit has soft and hard)", k)
			}
			x, err := integer(v)
			if err != nil {
				return err
			}
			if k == "soft" {
				got.Soft = x
			} else {
				got.Hard = x
			}
			seen[k] = true
		}
		if !seen["soft"] || !seen["hard"] {
			return fail("a limit needs both soft and hard (or one number for both)")
		}
		*u = got
		return nil
	}
	return fail("expected a number or a mapping with soft and hard")
}

// MarshalYAML writes a limit whose soft and hard values agree as one number.
func (u Ulimit) MarshalYAML() (any, error) {
	if u.Soft == u.Hard {
		return u.Soft, nil
	}
	return struct {
		Soft int `yaml:"soft"`
		Hard int `yaml:"hard"`
	}{u.Soft, u.Hard}, nil
}

// Limit names as Docker knows them (docker run --ulimit).
var ulimitNames = []string{"core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"}

// Linux signal names without SIG, as Docker parses a stop signal.
var signalNames = []string{"ABRT", "ALRM", "BUS", "CHLD", "CLD", "CONT", "FPE", "HUP", "ILL", "INT", "IO", "IOT", "KILL", "PIPE", "POLL", "PROF", "PWR", "QUIT", "SEGV", "STKFLT", "STOP", "SYS", "TERM", "TRAP", "TSTP", "TTIN", "TTOU", "URG", "USR1", "USR2", "VTALRM", "WINCH", "XCPU", "XFSZ"}

var rtSignalRe = regexp.MustCompile(`^RT(MIN(\+([1-9]|1[0-5]))?|MAX(-([1-9]|1[0-4]))?)$`)

// CanonicalSignal returns a stop signal as "SIGINT" (a name in any case, with
// or without SIG) or as its number (1 to 64).
func CanonicalSignal(s string) (string, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > 64 || s != strconv.Itoa(n) {
			return "", fmt.Errorf("%q is not a signal number from 1 to 64", s)
		}
		return s, nil
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if !slices.Contains(signalNames, name) && !rtSignalRe.MatchString(name) {
		return "", fmt.Errorf("%q is not a signal (like SIGTERM, SIGINT, SIGQUIT or a number)", s)
	}
	return "SIG" + name, nil
}

// Linux capabilities without CAP_, as Docker 20.10 knows them.
var capabilityNames = []string{
	"AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE", "CHOWN",
	"DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
	"LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE",
	"NET_BROADCAST", "NET_RAW", "PERFMON", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_ADMIN",
	"SYS_BOOT", "SYS_CHROOT", "SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO",
	"SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "SYSLOG", "WAKE_ALARM",
}

// CanonicalCapability returns a capability as "CAP_NET_ADMIN" (written in any
// case, with or without CAP_), or "ALL".
func CanonicalCapability(s string) (string, error) {
	name := strings.TrimPrefix(strings.ToUpper(s), "CAP_")
	if name == "ALL" {
		return name, nil
	}
	if !slices.Contains(capabilityNames, name) {
		return "", fmt.Errorf("%q is not a Linux capability (like NET_ADMIN, SYS_NICE or ALL)", s)
	}
	return "CAP_" + name, nil
}

// canonicalCapabilities sorts and deduplicates capabilities written in any
// form, as the engine applies them; ones that do not parse stay as written.
func canonicalCapabilities(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		if cc, err := CanonicalCapability(c); err == nil {
			c = cc
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Sysctls a container may set: those of the kernel namespaces Docker gives it
// (the list docker run --sysctl checks).
var (
	namespacedSysctls        = []string{"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced"}
	namespacedSysctlPrefixes = []string{"net.", "fs.mqueue."}
)

func namespacedSysctl(key string) bool {
	for _, p := range namespacedSysctlPrefixes {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	return slices.Contains(namespacedSysctls, key)
}

// Tmpfs mount options the engine accepts: flags, and key=value options with
// the pattern their value must match.
var (
	tmpfsFlags = []string{"ro", "rw", "suid", "nosuid", "dev", "nodev", "exec", "noexec", "sync", "async", "dirsync",
		"mand", "nomand", "atime", "noatime", "diratime", "nodiratime", "relatime", "norelatime", "strictatime", "nostrictatime"}
	tmpfsValues = map[string]*regexp.Regexp{
		"size":      regexp.MustCompile(`^[0-9]+[kKmMgG%]?$`),
		"nr_blocks": regexp.MustCompile(`^[0-9]+[kKmMgG]?$`),
		"nr_inodes": regexp.MustCompile(`^[0-9]+[kKmMgG]?$`),
		"mode":      regexp.MustCompile(`^[0-7]{3,4}$`),
		"uid":       regexp.MustCompile(`^[0-9]+$`),
		"gid":       regexp.MustCompile(`^[0-9]+$`),
		"mpol":      regexp.MustCompile(`^(default|prefer|bind|interleave|local)(:[0-9,-]+)?$`),
	}
)

// ParseTmpfs splits a tmpfs entry, "/run" or "/run:size=64m,mode=1777" as in
// compose, into its target and its mount options, checking both.
func ParseTmpfs(entry string) (target, options string, err error) {
	target, options, _ = strings.Cut(entry, ":")
	if !strings.HasPrefix(target, "/") {
		return "", "", fmt.Errorf("%q must start with an absolute path (like /run or /run:size=64m)", entry)
	}
	if options == "" {
		return target, "", nil
	}
	for _, o := range strings.Split(options, ",") {
		k, v, hasValue := strings.Cut(o, "=")
		re, known := tmpfsValues[k]
		switch {
		case !hasValue && slices.Contains(tmpfsFlags, k):
		case hasValue && known && re.MatchString(v):
		case known:
			return "", "", fmt.Errorf("%q: invalid value for tmpfs option %s", entry, k)
		default:
			return "", "", fmt.Errorf("%q: unknown tmpfs option %q (use size, mode, uid, gid, nr_inodes, nr_blocks, mpol or a flag such as noexec)", entry, o)
		}
	}
	return target, options, nil
}

var hostnameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// ParseExtraHost splits an extraHosts entry, "host:ip" or "host=ip" as in
// compose, into the host name and the IP address (or host-gateway, the
// engine's address on the host).
func ParseExtraHost(entry string) (host, ip string, err error) {
	sep := ":"
	if strings.Contains(entry, "=") {
		sep = "="
	}
	host, ip, ok := strings.Cut(entry, sep)
	ip = strings.TrimSuffix(strings.TrimPrefix(ip, "["), "]")
	switch {
	case !ok || !hostnameRe.MatchString(host):
		return "", "", fmt.Errorf("%q must be HOST:IP or HOST=IP", entry)
	case ip != "host-gateway" && net.ParseIP(ip) == nil:
		return "", "", fmt.Errorf("%q: %q is not an IP address or host-gateway", entry, ip)
	}
	return host, ip, nil
}

// settings checks the container settings of t; tmpfs targets join mounts.
func (v *validator) settings(t Template, mounts map[string]string) {
	const p = "template."
	if t.StopSignal != "" {
		if _, err := CanonicalSignal(t.StopSignal); err != nil {
			v.add(p+"stopSignal", "%v", err)
		}
	}
	if t.ShmSize != "" {
		if _, err := ParseMemory(t.ShmSize); err != nil {
			v.add(p+"shmSize", "%v", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Ulimits)) {
		u, path := t.Ulimits[name], p+"ulimits."+name
		switch {
		case !slices.Contains(ulimitNames, name):
			v.add(path, "unknown limit %q (use %s)", name, strings.Join(ulimitNames, ", "))
		case u.Soft < -1 || u.Hard < -1:
			v.add(path, "limits must be >= 0, or -1 for unlimited")
		case u.Hard != -1 && u.Soft == -1:
			v.add(path, "an unlimited (-1) soft limit needs an unlimited hard limit, got %d", u.Hard)
		case u.Hard != -1 && u.Soft > u.Hard:
			v.add(path, "soft limit %d is above the hard limit %d", u.Soft, u.Hard)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Sysctls)) {
		switch {
		case !namespacedSysctl(k):
			v.add(p+"sysctls."+k, "%q is not namespaced per container: only net.*, fs.mqueue.* and the kernel IPC settings (kernel.msgmax, kernel.sem, kernel.shmmax, ...) can be set", k)
		case t.Sysctls[k] == "":
			v.add(p+"sysctls."+k, "needs a value")
		}
	}
	for i, e := range t.Tmpfs {
		path := fmt.Sprintf("%stmpfs[%d]", p, i)
		if target, _, err := ParseTmpfs(e); err != nil {
			v.add(path, "%v", err)
		} else {
			v.uniqueMount(mounts, path, target)
		}
	}
	for _, caps := range []struct {
		field string
		list  []string
	}{{"capAdd", t.CapAdd}, {"capDrop", t.CapDrop}} {
		for i, c := range caps.list {
			if _, err := CanonicalCapability(c); err != nil {
				v.add(fmt.Sprintf("%s%s[%d]", p, caps.field, i), "%v", err)
			}
		}
	}
	for i, e := range t.ExtraHosts {
		if _, _, err := ParseExtraHost(e); err != nil {
			v.add(fmt.Sprintf("%sextraHosts[%d]", p, i), "%v", err)
		}
	}
}

var ownerRe = regexp.MustCompile(`^([0-9]+):([0-9]+)$`)

// ParseOwner parses a claim's owner, "UID:GID" in numbers (as the image's
// user database is not read: `id postgres` in the image tells them).
func ParseOwner(s string) (uid, gid int, err error) {
	m := ownerRe.FindStringSubmatch(s)
	if m != nil {
		uid, err = strconv.Atoi(m[1])
		if err == nil {
			gid, err = strconv.Atoi(m[2])
		}
	}
	if m == nil || err != nil || uid > math.MaxInt32 || gid > math.MaxInt32 {
		return 0, 0, fmt.Errorf("%q must be UID:GID, two numbers from 0 to %d (like \"999:999\")", s, math.MaxInt32)
	}
	return uid, gid, nil
}
