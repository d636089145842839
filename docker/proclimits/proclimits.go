// Package proclimits reads the hard resource limits of a dockerd process from
// /proc, for the engine's limits a set's ulimits may not pass. It imports
// nothing of ostset.
package proclimits

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procLimitNames maps the rows of /proc/PID/limits to Docker's ulimit names.
// Their units are setrlimit's, as Docker's ulimits are.
var procLimitNames = map[string]string{
	"Max cpu time": "cpu", "Max file size": "fsize", "Max data size": "data", "Max stack size": "stack",
	"Max core file size": "core", "Max resident set": "rss", "Max processes": "nproc", "Max open files": "nofile",
	"Max locked memory": "memlock", "Max file locks": "locks", "Max pending signals": "sigpending",
	"Max msgqueue size": "msgqueue", "Max nice priority": "nice", "Max realtime priority": "rtprio",
	"Max realtime timeout": "rttime",
}

// capSysResource is CAP_SYS_RESOURCE's bit in /proc/PID/status's CapEff.
const capSysResource = 24

// Of reads the hard limits of process pid (a dockerd) under proc;
// nil when it cannot (no such process, or not a dockerd).
func Of(proc string, pid int) map[string]int64 {
	dir := filepath.Join(proc, strconv.Itoa(pid))
	if comm, err := os.ReadFile(filepath.Join(dir, "comm")); err != nil || strings.TrimSpace(string(comm)) != "dockerd" {
		return nil
	}
	if capable(filepath.Join(dir, "status"), capSysResource) {
		b, err := os.ReadFile(filepath.Join(proc, "sys/fs/nr_open"))
		if n, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && perr == nil {
			return map[string]int64{"nofile": n}
		}
		return nil
	}
	f, err := os.Open(filepath.Join(dir, "limits"))
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for row, name := range procLimitNames {
			rest, ok := strings.CutPrefix(line, row+" ")
			if !ok {
				continue
			}
			fields := strings.Fields(rest) // soft hard [units]
			if len(fields) < 2 {
				continue
			}
			if fields[1] == "unlimited" {
				out[name] = -1
			} else if n, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// capable reports whether the CapEff line of a /proc/PID/status file holds bit.
func capable(status string, bit uint) bool {
	b, err := os.ReadFile(status)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<bit) != 0
		}
	}
	return false
}
