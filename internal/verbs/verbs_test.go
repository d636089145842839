package verbs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/live"
)

// testRoot is a command tree like ostset's: up, down, get (failing with an
// unknown set), rollout restart; ran records what the verbs ran.
func testRoot(sets []string, ran *[][]string) *cobra.Command {
	root := &cobra.Command{Use: "ostset", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().String("state-dir", "", "")
	up := &cobra.Command{Use: "up", RunE: func(*cobra.Command, []string) error { return nil }}
	up.Flags().StringArrayP("file", "f", nil, "")
	get := &cobra.Command{Use: "get", RunE: func(_ *cobra.Command, args []string) error {
		if len(args) == 1 && !slices.Contains(sets, args[0]) {
			return state.ErrUnknownSet
		}
		return nil
	}}
	rollout := &cobra.Command{Use: "rollout"}
	rollout.AddCommand(&cobra.Command{Use: "restart"})
	logs := &cobra.Command{Use: "logs", Args: cobra.MinimumNArgs(1), RunE: func(_ *cobra.Command, args []string) error {
		*ran = append(*ran, append([]string{"logs"}, args...))
		return nil
	}}
	logs.Flags().BoolP("follow", "f", false, "")
	root.AddCommand(up, &cobra.Command{Use: "down"}, get, rollout, &cobra.Command{Use: "recreate"}, logs)
	Install(root, Env{
		Sets: func() ([]string, error) { return sets, nil },
		// Sets ending in db are stopped; each is labelled app=<name without shop->.
		Load: func(set string) (state.State, error) {
			if !slices.Contains(sets, set) {
				return state.State{}, state.ErrUnknownSet
			}
			st := state.State{Spec: config.Set{Name: set, Template: config.Template{Labels: map[string]string{"app": strings.TrimPrefix(set, "shop-")}}}}
			st.Stopped = strings.HasSuffix(set, "db")
			return st, nil
		},
		SetStopped: func(_ context.Context, set string, stop bool) (bool, error) {
			*ran = append(*ran, []string{"stopped", set, fmt.Sprint(stop)})
			return stop != strings.HasSuffix(set, "db"), nil
		},
		Converge: func(_ context.Context, sets []string, _ time.Duration) error {
			*ran = append(*ran, append([]string{"converge"}, sets...))
			return nil
		},
		Project: func(set string) (string, error) {
			if strings.HasPrefix(set, "shop-") {
				return "shop", nil
			}
			return "", nil
		},
		Run: func(_ context.Context, args []string, _ io.Writer) error {
			*ran = append(*ran, args)
			return nil
		},
	})
	return root
}

func run(root *cobra.Command, args ...string) error {
	if err := Check(root, args); err != nil {
		return err
	}
	root.SetArgs(args)
	return root.Execute()
}

func TestUnknownCommandSuggestsTheCommandWithItsArguments(t *testing.T) {
	var ran [][]string
	root := testRoot(nil, &ran)
	cases := map[string]string{
		"upp -f x.yaml":             "unknown command upp; did you mean: ostset up -f x.yaml",
		"rm web":                    "unknown command rm; did you mean: ostset down web",
		"--state-dir /d kill web-1": "unknown command kill; did you mean: ostset recreate --state-dir /d web-1",
		"pause web":                 "ostset has no command pause: ostset rollout pause SET stops updating replicas; to stop the replicas: ostset stop SET",
		"attach web-0":              "ostset has no command attach: use ostset logs -f",
		"frobnicate":                "unknown command frobnicate (see ostset --help)",
	}
	for line, want := range cases {
		err := Check(root, strings.Fields(line))
		var ie *InvalidError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an InvalidError with %q", line, err, want)
		}
	}
	for _, ok := range []string{"up -f x.yaml", "apply -f x.yaml", "--state-dir /d get", "help", "completion bash", "__complete get ", ""} {
		if err := Check(root, strings.Fields(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestAliasesRunTheirCommandWithTheSameArguments(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"web"}, &ran)
	for _, line := range []string{"apply -f x.yaml", "delete web --volumes", "delete -f compose.yaml", "restart web --timeout 1m", "delete --help"} {
		if err := run(root, strings.Fields(line)...); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	want := [][]string{{"up", "-f", "x.yaml"}, {"down", "web", "--volumes"}, {"down", "-f", "compose.yaml"},
		{"rollout", "restart", "web", "--timeout", "1m"}, {"down", "--help"}}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ran %q, want %q", ran, want)
	}
}

func TestCommandsRunWhatTheyMean(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"db", "web"}, &ran)
	for _, line := range []string{"ps", "config web", "config -f compose.yaml",
		"wait --for=condition=Ready web --timeout 1m", "ps --state-dir /d web"} {
		if err := run(root, strings.Fields(line)...); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	want := [][]string{{"get", "db"}, {"get", "web"}, {"export", "web", "-o", "yaml"},
		{"convert", "-o", "yaml", "-f", "compose.yaml"}, {"rollout", "status", "web", "--timeout=1m0s"},
		{"get", "web", "--state-dir=/d"}}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ran %q, want %q", ran, want)
	}
	if err := run(root, "wait", "--for=delete", "web"); err == nil || !strings.Contains(err.Error(), "condition=Ready") {
		t.Errorf("wait --for=delete: %v", err)
	}
}

func TestReplicaOf(t *testing.T) {
	sets := []string{"web", "my-db", "db-0"}
	for name, want := range map[string]int{"web": -1, "web-2": 2, "my-db-0": 0, "db-0": -1, "db-0-1": 1, "other-1": -1, "web-x": -1} {
		if _, got := replicaOf(name, sets); got != want {
			t.Errorf("replicaOf(%s) = %d, want %d", name, got, want)
		}
	}
}

func TestUnknownFlagsSayWhatToUse(t *testing.T) {
	var ran [][]string
	for line, want := range map[string]string{
		"up --fil x.yaml": "unknown flag: --fil: did you mean --file?",
		"up -n prod":      "ostset has no namespaces",
		"get -l app=web":  "ostset selects by set name",
	} {
		root := testRoot(nil, &ran)
		if err := run(root, strings.Fields(line)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

func TestGetOfAKindListsTheSets(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"db", "web"}, &ran)
	err := run(root, "get", "pods")
	if !errors.Is(err, state.ErrUnknownSet) || !strings.Contains(err.Error(), "takes a set's name") || !strings.Contains(err.Error(), "the sets are: db, web") {
		t.Errorf("get pods: %v", err)
	}
	if err := run(root, "get", "webb"); !errors.Is(err, state.ErrUnknownSet) || err.Error() != state.ErrUnknownSet.Error() {
		t.Errorf("get webb: %v, want the unknown set error unchanged", err)
	}
}

func TestDockerCLIPlugin(t *testing.T) {
	env := map[string]string{pluginEnv: "/usr/bin/docker"}
	if got := PluginArgs([]string{"ostset", "up", "-f", "x"}, func(k string) string { return env[k] }); !slices.Equal(got, []string{"up", "-f", "x"}) {
		t.Errorf("as a plugin: %q", got)
	}
	if got := PluginArgs([]string{"__complete", "ostset", "get", ""}, func(k string) string { return env[k] }); !slices.Equal(got, []string{"__complete", "get", ""}) {
		t.Errorf("completion as a plugin: %q", got)
	}
	if got := PluginArgs([]string{"ostset", "up"}, func(string) string { return "" }); !slices.Equal(got, []string{"ostset", "up"}) {
		t.Errorf("not a plugin: %q", got)
	}
	var out bytes.Buffer
	done, err := PluginMetadata([]string{"docker-cli-plugin-metadata"}, "1.2.3", &out)
	if !done || err != nil || !strings.Contains(out.String(), `"SchemaVersion": "0.1.0"`) || !strings.Contains(out.String(), `"Version": "1.2.3"`) {
		t.Errorf("metadata: %v %v %s", done, err, out.String())
	}
	if done, _ := PluginMetadata([]string{"up"}, "1", &out); done {
		t.Error("up answered as metadata")
	}
}

// The man pages and completions are made from the command tree: the words
// added here are in them.
func TestDocsFromTheCommands(t *testing.T) {
	var ran [][]string
	root := testRoot(nil, &ran)
	dir := t.TempDir()
	if err := run(root, "__docs", dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "man", "man1", "ostset-apply.1"))
	if err != nil || !bytes.Contains(page, []byte("those of ostset up")) {
		t.Fatalf("man page of apply: %v\n%s", err, page)
	}
	for _, f := range []string{"ostset.bash", "_ostset", "ostset.fish"} {
		if b, err := os.ReadFile(filepath.Join(dir, "completion", f)); err != nil || len(b) == 0 {
			t.Errorf("completion %s: %v", f, err)
		}
	}
}

// top shows each running replica's CPU between two samples, in millicores,
// and its memory in MiB.
func TestTop(t *testing.T) {
	root := &cobra.Command{Use: "ostset", SilenceErrors: true, SilenceUsage: true}
	samples := 0
	Install(root, Env{
		Sets: func() ([]string, error) { return []string{"web"}, nil },
		Run: func(_ context.Context, args []string, out io.Writer) error {
			_, err := io.WriteString(out, `[{"name":"web-0","id":"a","state":"running"},{"name":"web-1","state":"pending"}]`)
			return err
		},
		Stats: func(_ context.Context, set, id string) (live.Usage, error) {
			samples++
			if set != "web" || id != "a" {
				t.Errorf("stats of %s %s", set, id)
			}
			// Each second 0.25 s of CPU, of 2 s of the 2 CPUs' time: 25% of one CPU, 250m.
			return live.Usage{CPU: uint64(samples) * 250e6, System: uint64(samples) * 2e9, OnlineCPUs: 2, Memory: 64 << 20, At: time.Unix(int64(samples), 0)}, nil
		},
	})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"top"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if samples != 2 || !strings.Contains(out.String(), "web-0  250m        64Mi") || strings.Contains(out.String(), "web-1") {
		t.Errorf("top (%d samples):\n%s", samples, out.String())
	}
}

// ls lists the compose projects with their sets; ps -p one project's replicas.
func TestProjects(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"shop-db", "shop-web", "solo"}, &ran)
	var out bytes.Buffer
	root.SetOut(&out)
	if err := run(root, "ls"); err != nil {
		t.Fatal(err)
	}
	if want := "PROJECT      SETS\n(set files)  solo\nshop         shop-db(stopped),shop-web\n"; out.String() != want {
		t.Errorf("ls:\n%s\nwant:\n%s", out.String(), want)
	}
	if err := run(root, "ps", "-p", "shop"); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"get", "shop-db"}, {"get", "shop-web"}}; !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ps -p shop ran %q, want %q", ran, want)
	}
	if err := run(root, "ps", "-p", "none"); err == nil || !strings.Contains(err.Error(), "no stored set belongs to compose project none") {
		t.Errorf("ps -p none: %v", err)
	}
}

// stop and start record the sets as stopped or started, all of them known
// first, then wait for them; an unknown set changes none.
func TestStopStart(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"shop-db", "shop-web"}, &ran)
	var out bytes.Buffer
	root.SetOut(&out)
	if err := run(root, "stop", "shop-web", "shop-db"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"stopped", "shop-web", "true"}, {"stopped", "shop-db", "true"}, {"converge", "shop-web", "shop-db"}}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("stop ran %q, want %q", ran, want)
	}
	if want := "shop-db: already stopped\nshop-web: stopped\nshop-db: stopped\n"; out.String() != want {
		t.Errorf("stop said:\n%s\nwant:\n%s", out.String(), want)
	}
	ran = nil
	if err := run(root, "start", "shop-db", "shop-wbe"); !errors.Is(err, state.ErrUnknownSet) || len(ran) != 0 {
		t.Errorf("start of an unknown set: %v, ran %q", err, ran)
	}
	if err := run(root, "start", "shop-db", "--wait=false"); err != nil || !slices.EqualFunc(ran, [][]string{{"stopped", "shop-db", "false"}}, slices.Equal) {
		t.Errorf("start --wait=false: %v, ran %q", err, ran)
	}
	ran = nil
	if err := run(root, "stop", "-p", "shop", "--wait=false"); err != nil || len(ran) != 2 || ran[0][1] != "shop-db" || ran[1][1] != "shop-web" {
		t.Errorf("stop -p shop: %v, ran %q", err, ran)
	}
	if err := run(testRoot(nil, &ran), "stop"); !errors.As(err, new(*InvalidError)) {
		t.Errorf("stop of nothing: %v", err)
	}
}

// logs -l runs logs of every set whose labels match the selector.
func TestLogsSelector(t *testing.T) {
	var ran [][]string
	root := testRoot([]string{"shop-db", "shop-web", "web"}, &ran)
	if err := run(root, "logs", "-l", "app=web", "-f"); err != nil {
		t.Fatal(err)
	}
	if err := run(root, "logs", "-l", "app!=web,io.ostset.set"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"logs", "shop-web", "web"}, {"logs", "shop-db"}}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("logs -l ran %q, want %q", ran, want)
	}
	if err := run(root, "logs", "-l", "app=web", "web"); !errors.As(err, new(*InvalidError)) {
		t.Errorf("logs -l with a SET: %v", err)
	}
	if err := run(root, "logs", "-l", "app in (web"); !errors.As(err, new(*InvalidError)) {
		t.Errorf("logs -l with a bad selector: %v", err)
	}
	ran = nil
	if err := run(root, "logs", "-l", "app=none"); err != nil || len(ran) != 0 {
		t.Errorf("logs -l matching nothing: %v, ran %q", err, ran)
	}
}
