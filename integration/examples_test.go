//go:build integration

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exampleHarness runs one of examples/<name>/set.yaml as a user would, with the
// image overridden by a local stand-in (make test-images). The examples name
// their sets (etcd, redis, postgres), so the test cleans up only what its own
// state directory created (the io.ostset.state-dir label), never another set of
// the same name.
func exampleHarness(t *testing.T, set, imageVar, image string) *harness {
	t.Helper()
	if out, err := exec.Command("docker", "image", "inspect", image).CombinedOutput(); err != nil {
		lacking(t, "image %s is not built (make test-images): %v %s", image, err, out)
	}
	h := &harness{t: t, set: set, stateDir: t.TempDir(), dir: t.TempDir(), env: []string{imageVar + "=" + image}}
	if d, err := filepath.EvalSymlinks(h.stateDir); err == nil {
		h.stateDir = d
	}
	t.Cleanup(h.cleanupOwned)
	return h
}

// cleanupOwned deletes the set through ostset, then removes anything its state
// directory created that is left.
func (h *harness) cleanupOwned() {
	h.ostset("down", h.set, "--volumes")
	label := "label=io.ostset.state-dir=" + h.stateDir
	if ids := h.dockerLines("ps", "-aq", "--filter", label); len(ids) > 0 {
		h.dockerQuiet(append([]string{"rm", "-f", "-v"}, ids...)...)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", label); len(vols) > 0 {
		h.dockerQuiet(append([]string{"volume", "rm", "-f"}, vols...)...)
	}
	if ids := h.dockerLines("ps", "-aq", "--filter", "label=io.ostset.test="+h.stateDir); len(ids) > 0 {
		h.dockerQuiet(append([]string{"rm", "-f"}, ids...)...)
	}
}

// The examples run as users run them, on the default network "ostset",
// which every example shares: their tests do not run in parallel, so that
// one's down, which removes that network once nothing is attached, cannot
// race another's create, nor leave the network behind.

// example is the path of examples/<name>/<file>.
func example(name, file string) string {
	p, _ := filepath.Abs(filepath.Join("..", "examples", name, file))
	return p
}

// exec runs a command in a container and returns its trimmed output.
func (h *harness) exec(container string, args ...string) string {
	h.t.Helper()
	return h.docker(append([]string{"exec", container}, args...)...)
}

// client starts a long-running helper container on network, labelled for
// cleanup, running the shell script, and returns its name.
func (h *harness) client(name, image, network, script string) string {
	h.t.Helper()
	h.docker("run", "-d", "--name", name, "--network", network, "--label", "io.ostset.test="+h.stateDir,
		"--entrypoint", "sh", image, "-c", script)
	return name
}

const etcdImage = "ostset-test/etcd:3"

// etcdctl runs etcdctl in member m of the set.
func (h *harness) etcdctl(m int, args ...string) string {
	h.t.Helper()
	return h.exec(h.name(m), append([]string{"etcdctl", "--endpoints", "http://127.0.0.1:2379"}, args...)...)
}

// memberIDs maps member names to IDs, as etcd lists them.
func (h *harness) memberIDs() map[string]string {
	h.t.Helper()
	ids := map[string]string{}
	for _, line := range strings.Split(h.etcdctl(0, "member", "list"), "\n") {
		// 8e9e05c52164694d, started, etcd-0, http://etcd-0.etcd:2380, http://etcd-0.etcd:2379, false
		f := strings.Split(line, ", ")
		if len(f) >= 3 {
			ids[f[2]] = f[0]
		}
	}
	return ids
}

// etcdReconfigure changes the membership through etcd-0. etcd refuses a
// reconfiguration until every member has been connected for 5 s ("unhealthy
// cluster"), as after a rollout that restarted them, so the change is tried
// again until etcd accepts it.
func (h *harness) etcdReconfigure(args ...string) {
	h.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		out, err := h.tryDocker(append([]string{"exec", h.name(0), "etcdctl", "--endpoints", "http://127.0.0.1:2379"}, args...)...)
		if err == nil {
			return
		}
		if !strings.Contains(out, "unhealthy cluster") || time.Now().After(deadline) {
			h.t.Fatalf("etcdctl %v: %v\n%s", args, err, out)
		}
	}
}

// etcdPut writes a key through member m as an etcd client must: a write that
// was in flight when the leader changed is lost with the old leader and fails,
// its outcome unknown ("request timed out, possibly due to previous leader
// failure", "request timed out", "leader changed", or the client's own
// deadline), and is sent again, as during a rolling restart of the leader.
// Removing a member that led the cluster does exactly that: seen here, the
// election took 1 s, and the write proposed to the removed leader just before
// failed after etcd's request timeout. Any other error fails the test, with
// each member's last log lines.
func (h *harness) etcdPut(m int, key, value string) {
	h.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		out, err := h.tryDocker("exec", h.name(m), "etcdctl", "--endpoints", "http://127.0.0.1:2379", "put", key, value)
		if err == nil {
			return
		}
		if !leaderChange(out) || time.Now().After(deadline) {
			for i := range 3 {
				logs, _ := h.tryDocker("logs", "--tail", "15", h.name(i))
				h.t.Logf("%s:\n%s", h.name(i), logs)
			}
			h.t.Fatalf("put %s: %v\n%s", key, err, out)
		}
	}
}

// leaderChange: etcdctl's output says a write's outcome is unknown because the
// leader changed while it was in flight.
func leaderChange(out string) bool {
	// etcd's errors of unknown outcome: ErrTimeout, ErrTimeoutDueToLeaderFail,
	// ErrLeaderChanged, a connection that closed under the request (gRPC
	// Unavailable), and the client's own deadline.
	for _, s := range []string{"request timed out", "leader changed", "code = Unavailable", "context deadline exceeded"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// The etcd example: a 3-member cluster that stays writable through a rolling
// restart, keeps its member IDs and keys, and changes membership by scaling.
func TestExampleEtcd(t *testing.T) {
	h := exampleHarness(t, "etcd", "ETCD_IMAGE", etcdImage)
	file := example("etcd", "set.yaml")
	h.mustOstset("up", "-f", file, "--timeout", "3m")
	for i := range 20 {
		h.etcdctl(i%3, "put", "key"+strconv.Itoa(i), "value"+strconv.Itoa(i))
	}
	ids := h.memberIDs()
	if len(ids) != 3 {
		t.Fatalf("members %v, want 3", ids)
	}

	// Writes in a loop, from a client on the set's network that knows every member.
	endpoints := "http://etcd-0.etcd:2379,http://etcd-1.etcd:2379,http://etcd-2.etcd:2379"
	writer := h.client("etcd-writer-"+filepath.Base(h.stateDir), etcdImage, "ostset",
		`i=0; while [ ! -e /stop ]; do n=0; until etcdctl --endpoints `+endpoints+` --command-timeout 10s put w$i $i >/tmp/out 2>&1; do if grep -Eq "request timed out|leader changed|code = Unavailable|context deadline exceeded" /tmp/out && [ $n -lt 5 ]; then n=$((n+1)); sleep 1; else echo FAILED w$i; cat /tmp/out; break; fi; done; i=$((i+1)); done; echo WROTE $i`)
	h.mustOstset("rollout", "restart", "etcd", "--wait", "--timeout", "3m")
	h.docker("exec", writer, "touch", "/stop")
	h.docker("wait", writer)
	out := h.docker("logs", writer)
	if strings.Contains(out, "FAILED") || !strings.Contains(out, "WROTE") {
		t.Errorf("writes during the rolling restart:\n%s", out)
	}
	if after := h.memberIDs(); !sameMap(ids, after) {
		t.Errorf("member IDs changed by the rolling restart: %v -> %v", ids, after)
	}
	for i := range 20 {
		if got := h.etcdctl(2, "get", "key"+strconv.Itoa(i), "--print-value-only"); got != "value"+strconv.Itoa(i) {
			t.Errorf("key%d after the restart: %q", i, got)
		}
	}

	// Scale up: add the member, then let ostset create it (README "Scaling").
	h.etcdReconfigure("member", "add", "etcd-3", "--peer-urls=http://etcd-3.etcd:2380")
	four := filepath.Join(h.dir, "set4.yaml")
	writeFile(t, four, strings.NewReplacer(
		"replicas: 3", "replicas: 4",
		"etcd-2=http://etcd-2.etcd:2380", "etcd-2=http://etcd-2.etcd:2380,etcd-3=http://etcd-3.etcd:2380",
		"ETCD_INITIAL_CLUSTER_STATE: new", "ETCD_INITIAL_CLUSTER_STATE: existing",
	).Replace(readFile(t, file)))
	h.mustOstset("up", "-f", four, "--timeout", "3m")
	if got := h.etcdctl(3, "get", "key7", "--print-value-only"); got != "value7" {
		t.Errorf("the new member etcd-3 reads key7 as %q", got)
	}
	if n := len(h.memberIDs()); n != 4 {
		t.Errorf("%d members after scaling to 4", n)
	}

	// Scale down: remove the member, then the replica (its volume goes too).
	h.etcdReconfigure("member", "remove", h.memberIDs()["etcd-3"])
	h.mustOstset("scale", "etcd", "--replicas", "3", "--timeout", "2m")
	if n := len(h.memberIDs()); n != 3 {
		t.Errorf("%d members after scaling back to 3", n)
	}
	if vols := h.dockerLines("volume", "ls", "-q", "--filter", "name=^data-etcd-3$"); len(vols) != 0 {
		t.Errorf("data-etcd-3 kept after scale-down with whenScaled: Delete")
	}
	h.etcdPut(1, "after", "scale")
	if got := h.etcdctl(0, "get", "after", "--print-value-only"); got != "scale" {
		t.Errorf("write after scaling down: %q", got)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const redisImage = "ostset-test/redis:7"

// redis runs redis-cli in replica m of the set.
func (h *harness) redis(m int, args ...string) string {
	h.t.Helper()
	return h.exec(h.name(m), append([]string{"redis-cli"}, args...)...)
}

// The Redis example: a primary and replicas that sync, scale, survive a rolling
// update, a replica removed by hand, and down and up.
func TestExampleRedis(t *testing.T) {
	h := exampleHarness(t, "redis", "REDIS_IMAGE", redisImage)
	file := example("redis", "set.yaml")
	h.mustOstset("up", "-f", file, "--timeout", "3m")
	// One connection for both: WAIT waits for its own connection's writes, so
	// on a connection of its own it returns at once, whatever the replicas hold.
	if out := h.exec(h.name(0), "sh", "-c", `printf 'SET greeting hello\nWAIT 2 5000\n' | redis-cli`); out != "OK\n2" {
		t.Fatalf("SET, then WAIT for 2 replicas, on the primary: %q, want OK and 2", out)
	}
	for m := range 3 {
		if got := h.redis(m, "get", "greeting"); got != "hello" {
			logs, _ := h.tryDocker("logs", "--tail", "30", h.name(m))
			t.Errorf("%s reads %q after the primary's WAIT; the primary's replication:\n%s\nits last logs:\n%s",
				h.name(m), got, h.redis(0, "info", "replication"), logs)
		}
	}
	if role := h.redis(1, "role"); !strings.HasPrefix(role, "slave\nredis-0.redis") {
		t.Errorf("redis-1 role:\n%s", role)
	}

	h.mustOstset("scale", "redis", "--replicas", "4", "--timeout", "2m")
	if got := h.redis(3, "get", "greeting"); got != "hello" {
		t.Errorf("redis-3, added by scaling, reads %q", got)
	}

	h.mustOstset("rollout", "restart", "redis", "--wait", "--timeout", "3m")
	h.docker("rm", "-f", h.name(2))
	h.mustOstset("reconcile", "redis", "--timeout", "2m")
	for m := range 4 {
		if got := h.redis(m, "get", "greeting"); got != "hello" {
			t.Errorf("%s after the rolling restart and a replica removed by hand reads %q", h.name(m), got)
		}
	}

	h.mustOstset("down", "redis")
	h.mustOstset("up", "-f", file, "--timeout", "3m")
	for m := range 3 {
		if got := h.redis(m, "get", "greeting"); got != "hello" {
			t.Errorf("%s after down and up reads %q", h.name(m), got)
		}
	}
}

const postgresImage = "ostset-test/postgres:15"

// psql runs a query in replica m and returns its unaligned, tuples-only output.
func (h *harness) psql(m int, query string) string {
	h.t.Helper()
	return h.exec(h.name(m), "psql", "-U", "postgres", "-Atc", query)
}

// eventually polls replica m until the query answers want (a standby replays
// the primary's WAL asynchronously) and fails the test after 30 s.
func (h *harness) eventually(m int, query, want string) {
	h.t.Helper()
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got, _ = h.tryDocker("exec", h.name(m), "psql", "-U", "postgres", "-Atc", query); got == want {
			return
		}
	}
	logs, _ := h.tryDocker("logs", "--tail", "40", h.name(m))
	h.t.Errorf("%s: %q answers %q, want %q; its last logs:\n%s", h.name(m), query, got, want, logs)
}

// The Postgres example: a standby seeded by the clone init container streams
// from the primary, keeps its data through a rolling update of a setting, a
// replica removed by hand and down and up, and scaling adds a standby.
func TestExamplePostgres(t *testing.T) {
	h := exampleHarness(t, "postgres", "POSTGRES_IMAGE", postgresImage)
	file := example("postgres", "set.yaml")
	h.mustOstset("up", "-f", file, "--timeout", "3m")
	h.psql(0, "create table t (x int); insert into t values (1), (2), (3)")
	h.eventually(1, "select sum(x) from t", "6")
	if got := h.psql(1, "select pg_is_in_recovery()"); got != "t" {
		t.Errorf("postgres-1 in recovery: %q, want t (a standby)", got)
	}

	// A rolling update of a setting: both replaced, on the same volumes.
	before := h.inspect(h.name(1)).ID
	tuned := filepath.Join(filepath.Dir(file), ".tuned-"+filepath.Base(h.stateDir)+".yaml")
	writeFile(t, tuned, strings.Replace(readFile(t, file),
		"  env:\n    POSTGRES_PASSWORD", "  args: [postgres, -c, max_connections=120]\n  env:\n    POSTGRES_PASSWORD", 1))
	t.Cleanup(func() { _ = os.Remove(tuned) })
	h.mustOstset("up", "-f", tuned, "--timeout", "3m")
	if h.inspect(h.name(1)).ID == before {
		t.Errorf("postgres-1 was not replaced by the rolling update")
	}
	for m := range 2 {
		if got := h.psql(m, "show max_connections"); got != "120" {
			t.Errorf("%s: max_connections %q after the update", h.name(m), got)
		}
	}
	h.psql(0, "insert into t values (4)")
	h.eventually(1, "select sum(x) from t", "10")

	h.mustOstset("scale", "postgres", "--replicas", "3", "--timeout", "3m")
	h.eventually(2, "select sum(x) from t", "10")

	h.docker("rm", "-f", h.name(1))
	h.mustOstset("reconcile", "postgres", "--timeout", "2m")
	h.psql(0, "insert into t values (5)")
	h.eventually(1, "select sum(x) from t", "15")

	h.mustOstset("down", "postgres")
	h.mustOstset("up", "-f", tuned, "--timeout", "3m")
	h.eventually(0, "select sum(x) from t", "15")
	h.eventually(1, "select sum(x) from t", "15")
	if got := h.psql(1, "select pg_is_in_recovery()"); got != "t" {
		t.Errorf("postgres-1 after down and up in recovery: %q", got)
	}
}

// The Kafka example: a topic with replication factor 3 keeps every
// acknowledged message through a rolling restart. Kafka is not packaged in
// Debian and CI reaches no registry, so this runs only with KAFKA_IMAGE naming
// a local Kafka image.
func TestExampleKafka(t *testing.T) {
	image := os.Getenv("KAFKA_IMAGE")
	if image == "" {
		t.Skip("no local Kafka image: Kafka is not packaged in Debian and no registry is reachable; set KAFKA_IMAGE to run it")
	}
	h := exampleHarness(t, "kafka", "KAFKA_IMAGE", image)
	h.mustOstset("up", "-f", example("kafka", "set.yaml"), "--timeout", "5m")
	bin := "/opt/kafka/bin/"
	h.exec(h.name(0), bin+"kafka-topics.sh", "--bootstrap-server", "localhost:9092",
		"--create", "--topic", "events", "--partitions", "3", "--replication-factor", "3")
	produce := func(from, to int) {
		var msgs []string
		for i := from; i < to; i++ {
			msgs = append(msgs, "m"+strconv.Itoa(i))
		}
		cmd := exec.Command("docker", "exec", "-i", h.name(0), bin+"kafka-console-producer.sh",
			"--bootstrap-server", "localhost:9092", "--topic", "events", "--producer-property", "acks=all")
		cmd.Stdin = strings.NewReader(strings.Join(msgs, "\n") + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("produce: %v\n%s", err, out)
		}
	}
	produce(0, 100)
	h.mustOstset("rollout", "restart", "kafka", "--wait", "--timeout", "5m")
	produce(100, 200)
	out := h.exec(h.name(2), bin+"kafka-console-consumer.sh", "--bootstrap-server", "localhost:9092",
		"--topic", "events", "--from-beginning", "--max-messages", "200", "--timeout-ms", "60000")
	got := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		got[strings.TrimSpace(l)] = true
	}
	for i := range 200 {
		if !got["m"+strconv.Itoa(i)] {
			t.Errorf("acknowledged message m%d lost", i)
		}
	}
}
