//go:build integration

package integration

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// privateEngine is a dockerd of the test's own, in a network namespace of its
// own (so that it cannot touch the host's links), with its own data root, exec
// root, socket and pid file, and no default bridge. The machine's engine is
// never restarted; this one is, as a person or an update restarts theirs.
type privateEngine struct {
	t     *testing.T
	dir   string
	netns string
	bin   string // the dockerd to run
	cmd   *exec.Cmd
	ended chan struct{}
}

func (e *privateEngine) host() string { return "unix://" + filepath.Join(e.dir, "sock") }

// startPrivateEngine starts the engine, loads the test images into it and
// registers its removal (dockerd stopped, what it mounted unmounted, its
// directory and network namespace removed), whatever the test's outcome.
func startPrivateEngine(t *testing.T) *privateEngine {
	t.Helper()
	return startPrivateEngineWith(t, "dockerd", "{}\n")
}

// startPrivateEngineWith is startPrivateEngine with the dockerd binary bin and
// the daemon.json config.
func startPrivateEngineWith(t *testing.T, bin, config string) *privateEngine {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a private engine needs root")
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Skipf("no %s to run a private engine", bin)
	}
	dir, err := os.MkdirTemp("", "efe") // short: the socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	e := &privateEngine{t: t, dir: dir, netns: "ef" + hex.EncodeToString(b), bin: bin}
	if out, err := exec.Command("ip", "netns", "add", e.netns).CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("ip netns add: %v %s", err, out)
	}
	t.Cleanup(e.remove)
	if out, err := exec.Command("ip", "netns", "exec", e.netns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v %s", err, out)
	}
	// The machine's daemon.json sets a data root: this engine reads none.
	if err := os.WriteFile(filepath.Join(dir, "daemon.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	e.start()
	save := exec.Command("docker", "-H", "unix:///var/run/docker.sock", "save", imageV1, imageV2)
	load := exec.Command("docker", "-H", e.host(), "load")
	pipe, err := save.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	load.Stdin = pipe
	if err := save.Start(); err != nil {
		t.Fatal(err)
	}
	if out, err := load.CombinedOutput(); err != nil {
		t.Fatalf("docker load into the private engine: %v %s", err, out)
	}
	if err := save.Wait(); err != nil {
		t.Fatalf("docker save: %v", err)
	}
	return e
}

// start runs dockerd and waits until it answers. `ip netns exec` would mount
// a fresh /sys, hiding the cgroup mounts dockerd needs ("Devices cgroup isn't
// mounted"): nsenter enters the network namespace alone.
func (e *privateEngine) start() {
	e.t.Helper()
	log, err := os.OpenFile(filepath.Join(e.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = log.Close() }()
	e.cmd = exec.Command("nsenter", "--net=/var/run/netns/"+e.netns, e.bin,
		"--config-file", filepath.Join(e.dir, "daemon.json"),
		"--data-root", filepath.Join(e.dir, "data"), "--exec-root", filepath.Join(e.dir, "exec"),
		"--pidfile", filepath.Join(e.dir, "pid"), "-H", e.host(),
		"--bridge", "none", "--iptables=false", "--ip-masq=false")
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.ended = make(chan struct{})
	go func(cmd *exec.Cmd, ended chan struct{}) { _ = cmd.Wait(); close(ended) }(e.cmd, e.ended)
	deadline := time.Now().Add(60 * time.Second)
	for exec.Command("docker", "-H", e.host(), "version").Run() != nil {
		select {
		case <-e.ended:
			e.t.Fatalf("the private dockerd exited:\n%s", e.logTail())
		default:
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the private dockerd did not answer in 60s:\n%s", e.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop signals dockerd (nsenter execs it: the pid is dockerd's) and waits for
// it to exit.
func (e *privateEngine) stop(sig syscall.Signal) {
	e.t.Helper()
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Signal(sig)
	select {
	case <-e.ended:
	case <-time.After(60 * time.Second):
		_ = e.cmd.Process.Kill()
		<-e.ended
		e.t.Errorf("the private dockerd took over 60s to stop on %v", sig)
	}
	e.cmd = nil
}

func (e *privateEngine) logTail() string {
	data, _ := os.ReadFile(filepath.Join(e.dir, "log"))
	if len(data) > 3000 {
		data = data[len(data)-3000:]
	}
	return string(data)
}

// remove stops dockerd, ends the container shims it left (found by its
// directory in their command line), unmounts what is left under its
// directory, removes it and the namespace, and checks that the host's docker0
// bridge is still there.
func (e *privateEngine) remove() {
	if e.cmd != nil {
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.ended:
		case <-time.After(30 * time.Second):
			_ = e.cmd.Process.Kill()
			<-e.ended
		}
		e.cmd = nil
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), e.dir+"/") {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	var mounts []string
	if f, err := os.Open("/proc/self/mountinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fields := strings.Fields(sc.Text()); len(fields) > 4 && strings.HasPrefix(fields[4], e.dir+"/") {
				mounts = append(mounts, fields[4])
			}
		}
		_ = f.Close()
	}
	slices.Reverse(mounts)
	for _, m := range mounts {
		if out, err := exec.Command("umount", "-l", m).CombinedOutput(); err != nil {
			e.t.Logf("umount %s: %v %s", m, err, out)
		}
	}
	if err := os.RemoveAll(e.dir); err != nil {
		e.t.Errorf("remove %s: %v", e.dir, err)
	}
	if out, err := exec.Command("ip", "netns", "delete", e.netns).CombinedOutput(); err != nil {
		e.t.Errorf("ip netns delete %s: %v %s", e.netns, err, out)
	}
	if out, err := exec.Command("ip", "link", "show", "docker0").CombinedOutput(); err != nil {
		e.t.Errorf("the host's docker0 is gone after the private engine: %v %s", err, out)
	}
}

// The engine is killed (SIGKILL) and stopped (SIGTERM), each once during a
// rolling update and once while idle, with the daemon running, and started
// again. Meanwhile the daemon stays up and says the engine is gone; after,
// it says it is back, and the set converges by itself: every replica at the
// update revision, every volume's data there, never two containers for one
// ordinal, the rollout finished.
func TestEfEngineRestart(t *testing.T) {
	t.Parallel()
	e := startPrivateEngine(t)
	h := newNamedHarness(t, "efr", t.TempDir())
	h.engine = e.host() // ostset and the checks' docker CLI both use the private engine
	guard := h.guardOrdinals()
	defer guard()
	d := h.startDaemon(nil, "--resync", "5s")
	h.mustOstset("up", "-f", h.writeSpec(daemonSpec(3), imageV1), "--wait=false")
	h.awaitReady(3)
	for ord := range 3 {
		h.docker("exec", h.name(ord), "/web", "write", "/data/marker", h.name(ord))
	}

	for _, trial := range []struct {
		sig     syscall.Signal
		rolling bool
	}{{syscall.SIGKILL, true}, {syscall.SIGKILL, false}, {syscall.SIGTERM, true}, {syscall.SIGTERM, false}} {
		what := fmt.Sprintf("%v while %s", trial.sig, map[bool]string{true: "rolling", false: "idle"}[trial.rolling])
		before := h.updateRevision()
		if trial.rolling {
			h.mustOstset("rollout", "restart", h.set, "--wait=false")
			rev := h.updateRevision()
			deadline := time.Now().Add(time.Minute)
			// Killed once a replica of the new revision runs, between two
			// replacements. A kill within a replica's start is not survived:
			// see "An engine killed while it starts a container" in
			// docs/guarantees.md.
			for !slices.Contains(h.dockerLines("ps", "--filter", "label=io.ostset.set="+h.set, "--filter", "status=running", "--format", `{{.Label "io.ostset.revision"}}`), rev) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: the rollout did not start", what)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		gone, back := strings.Count(d.out.String(), "docker engine gone"), strings.Count(d.out.String(), "docker engine back")
		e.stop(trial.sig)
		awaitLog(t, d, what, "docker engine gone", gone)
		time.Sleep(2 * time.Second) // the daemon retries against the engine that is gone
		select {
		case <-d.end:
			t.Fatalf("%s: the daemon exited while the engine was gone:\n%s", what, d.out)
		default:
		}
		e.start()
		awaitLog(t, d, what, "docker engine back", back)
		deadline := time.Now().Add(2 * time.Minute)
		for !h.settled() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the set did not converge after the engine restarted:\n%s\n%s", what, h.ostset("status", h.set).stdout, d.out)
			}
			time.Sleep(300 * time.Millisecond)
		}
		rev := h.checkReplicas(3)
		if rev != h.updateRevision() || (trial.rolling && rev == before) {
			t.Errorf("%s: replicas at %s; update revision %s, before %s", what, rev, h.updateRevision(), before)
		}
		for ord := range 3 {
			if got := h.docker("exec", h.name(ord), "/web", "cat", "/data/marker"); got != h.name(ord) {
				t.Errorf("%s: %s marker %q", what, h.name(ord), got)
			}
		}
		t.Logf("%s: converged at %s", what, rev)
	}
	d.stop()
}

// awaitLog waits until the daemon's log holds text more than n times.
func awaitLog(t *testing.T, d *daemon, what, text string, n int) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for strings.Count(d.out.String(), text) <= n {
		select {
		case <-d.end:
			t.Fatalf("%s: the daemon exited before saying %q:\n%s", what, text, d.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the daemon did not say %q:\n%s", what, text, d.out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
