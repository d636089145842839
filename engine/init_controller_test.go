package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// initSet is web with replicas and two init containers, clone (image "clone")
// and chown (image chown), as a set file gives it.
func initSet(replicas int, clone string) config.Set {
	return config.Set{Name: "web", Source: "set.yaml:1", Replicas: &replicas, Template: config.Template{
		Image: "v1",
		InitContainers: []config.InitContainer{
			{Name: "clone", Image: clone, Args: []string{"clone", "{{.Ordinal}}"}},
			{Name: "chown", Image: "chown"},
		},
	}, VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
}

// initController applies s through Controller.Apply, as ostset up does.
func initController(t *testing.T, rt *enginetest.Runtime, s config.Set) (*engine.Controller, *[]string) {
	t.Helper()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	var mu sync.Mutex // the executor reports from its goroutines
	var events []string
	c.Report = func(e state.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e.Message)
	}
	applySet(t, c, s)
	return c, &events
}

func applySet(t *testing.T, c *engine.Controller, s config.Set) {
	t.Helper()
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
}

// convergeFor converges web for at most d and returns how the wait ended.
func convergeFor(c *engine.Controller, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.Converge(ctx, "web")
}

func TestConvergeRunsInitContainersInOrder(t *testing.T) {
	rt := enginetest.New()
	c, events := initController(t, rt, initSet(2, "clone"))
	converge(t, c)
	rt.Log = sortRemovals(rt.Log)
	want := []string{
		"create-init web-0-init-clone", "create-init web-0-init-chown", "create web-0",
		"remove-init web-0-init-chown", "remove-init web-0-init-clone",
		"create-init web-1-init-clone", "create-init web-1-init-chown", "create web-1",
		"remove-init web-1-init-chown", "remove-init web-1-init-clone",
	}
	if !prefixes(rt.Log, want) {
		t.Fatalf("log\n%s\nwant\n%s", strings.Join(rt.Log, "\n"), strings.Join(want, "\n"))
	}
	if slices.ContainsFunc(*events, func(e string) bool { return strings.Contains(e, "reuses volume") }) {
		t.Errorf("the replica reported the volume its init container created as reused: %v", *events)
	}
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	rev, _ := st.Revision(st.UpdateRevision)
	if ids := rev.Spec.InitImageIDs; ids["clone"] != "sha256:clone" || ids["chown"] != "sha256:chown" {
		t.Errorf("init image IDs %v", ids)
	}

	// A Docker restart of the replica runs nothing; a recreation runs them again.
	rt.Log = nil
	rt.Exit("web-1")
	converge(t, c)
	rt.Log = sortRemovals(rt.Log)
	want = []string{"remove web-1", "create-init web-1-init-clone", "create-init web-1-init-chown", "create web-1",
		"remove-init web-1-init-chown", "remove-init web-1-init-clone"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("recreation log\n%s\nwant\n%s", strings.Join(rt.Log, "\n"), strings.Join(want, "\n"))
	}
}

// A failing init container leaves its replica not ready and halts OrderedReady;
// it runs again at once, then after a back-off; status and events report its exit
// code and output; a fixed template heals the set.
func TestInitContainerFailure(t *testing.T) {
	rt := enginetest.New()
	rt.InitExit = map[string]int{"sha256:bad": 3}
	rt.InitOutput = map[string][]string{"sha256:bad": {"cloning from web-0", "connection refused"}}
	c, events := initController(t, rt, initSet(2, "bad"))
	var stopped *engine.StoppedError
	if err := convergeFor(c, 300*time.Millisecond); !errors.As(err, &stopped) || !strings.Contains(stopped.Detail, "init container clone exited with code 3") {
		t.Fatalf("converge: %v, want it stopped waiting for the failed init container", err)
	}
	want := []string{"create-init web-0-init-clone", "remove-init web-0-init-clone", "create-init web-0-init-clone"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v (one rerun at once, then a back-off)", rt.Log, want)
	}
	s, _, err := c.Status(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Initializing) != 1 || s.Initializing[0].State != plan.InitFailed || s.Initializing[0].ExitCode != 3 ||
		s.Initializing[0].Init != "clone" || !slices.Equal(s.Initializing[0].Logs, []string{"cloning from web-0", "connection refused"}) {
		t.Errorf("status initializing %+v", s.Initializing)
	}
	if len(s.Containers) != 0 || s.ReadyReplicas != 0 {
		t.Errorf("status counts the init container: %+v", s)
	}
	wantEvent := "web-0: init container clone (web-0-init-clone) exited with code 3; last output: cloning from web-0 | connection refused"
	if !slices.Contains(*events, wantEvent) {
		t.Errorf("events %q lack %q", *events, wantEvent)
	}

	applySet(t, c, initSet(2, "clone"))
	rt.Log = nil
	converge(t, c)
	want = []string{"remove-init web-0-init-clone", "create-init web-0-init-clone", "create-init web-0-init-chown", "create web-0"}
	if !prefixes(rt.Log[:4], want) {
		t.Fatalf("after the fix: log %v, want it to begin %v", rt.Log, want)
	}
	if inits := rt.Inits(); len(inits) != 0 {
		t.Errorf("init containers left: %v", inits)
	}
}

// A controller that stops while an init container runs (a killed process) is
// picked up by the next one, which never creates the replica before it succeeded.
func TestInitContainerResumes(t *testing.T) {
	rt := enginetest.New()
	rt.InitHang = map[string]bool{"sha256:slow": true}
	c, _ := initController(t, rt, initSet(1, "slow"))
	if err := convergeFor(c, 100*time.Millisecond); err == nil {
		t.Fatal("converged while the init container runs")
	}
	next := &engine.Controller{Runtime: rt, Store: c.Store, Poll: 5 * time.Millisecond}
	if err := convergeFor(next, 100*time.Millisecond); err == nil || len(rt.Replicas()) != 0 {
		t.Fatalf("the next process: %v, replicas %v; want it to wait for the init container", err, rt.Replicas())
	}
	rt.FinishInit("web-0-init-clone", 0)
	converge(t, next)
	rt.Log = sortRemovals(rt.Log)
	want := []string{"create-init web-0-init-clone", "create-init web-0-init-chown", "create web-0", "remove-init web-0-init-chown", "remove-init web-0-init-clone"}
	if !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}

// Scale-down and delete remove init containers like replicas.
func TestInitContainersRemovedWithTheSet(t *testing.T) {
	rt := enginetest.New()
	rt.InitHang = map[string]bool{"sha256:slow": true}
	s := initSet(1, "clone")
	s.PodManagementPolicy = config.Parallel
	c, _ := initController(t, rt, s)
	converge(t, c)
	s.Replicas = ptr(3)
	s.Template.InitContainers[0].Image = "slow" // a new revision whose init container hangs
	applySet(t, c, s)
	if err := convergeFor(c, 100*time.Millisecond); err == nil {
		t.Fatal("converged while init containers run")
	}
	if got := rt.Inits(); !slices.Equal(got, []string{"web-1-init-clone", "web-2-init-clone"}) {
		t.Fatalf("init containers %v", got)
	}
	s.Replicas = ptr(2)
	applySet(t, c, s)
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if got := rt.Inits(); !slices.Equal(got, []string{"web-1-init-clone"}) {
		t.Fatalf("after scaling down to 2: init containers %v", got)
	}
	if err := c.Delete(context.Background(), "web", true); err != nil {
		t.Fatal(err)
	}
	if inits, replicas := rt.Inits(), rt.Replicas(); len(inits)+len(replicas) > 0 {
		t.Errorf("after delete: init containers %v, replicas %v", inits, replicas)
	}
}

// Apply pulls every init container's image per its own policy, and a missing one
// is an image error naming its field.
func TestApplyPullsInitImages(t *testing.T) {
	rt := enginetest.New()
	rt.Local = map[string]string{"v1": "sha256:v1", "chown": "sha256:chown"}
	rt.Registry = map[string]string{"clone": "sha256:clone"}
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	res, err := c.Apply(context.Background(), initSet(1, "clone"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pull clone"}; !slices.Equal(rt.Log, want) {
		t.Errorf("log %v, want %v", rt.Log, want)
	}
	rev, _ := res.State.Revision(res.State.UpdateRevision)
	if rev.Spec.InitImageIDs["clone"] != "sha256:clone" || rev.Spec.ImageID != "sha256:v1" {
		t.Errorf("revision images %s %v", rev.Spec.ImageID, rev.Spec.InitImageIDs)
	}
	s := initSet(1, "clone")
	s.Template.InitContainers[1].Image = "missing"
	s.Template.InitContainers[1].ImagePullPolicy = config.PullNever
	var ie *engine.ImageError
	if _, err := c.Apply(context.Background(), s, "test", nil); !errors.As(err, &ie) ||
		!strings.HasPrefix(err.Error(), "set.yaml:1: template.initContainers[1].image: missing: not present locally") {
		t.Errorf("missing init image: %v", err)
	}
}

// sortRemovals sorts each run of init container removals: one plan removes an
// ordinal's init containers concurrently.
func sortRemovals(log []string) []string {
	out := slices.Clone(log)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "remove-init ") {
			j++
		}
		slices.Sort(out[i:j])
		i = max(j, i+1)
	}
	return out
}

// ostset recreate removes init containers still there from the replica's start
// before the replica, so that the next one runs its own.
func TestRecreateRemovesLeftoverInits(t *testing.T) {
	rt := enginetest.New()
	c, _ := initController(t, rt, initSet(1, "clone"))
	converge(t, c)
	st, err := c.Store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	rt.AddInit(plan.InitContainer{ID: "left", Name: "web-0-init-clone", Ordinal: 0, Init: "clone", Revision: st.UpdateRevision, State: plan.StateExited})
	rt.Log = nil
	if err := c.Recreate(context.Background(), "web", []int{0}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"remove-init web-0-init-clone", "remove web-0"}; !slices.Equal(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	rt.Log = nil
	converge(t, c)
	if want := []string{"create-init web-0-init-clone", "create-init web-0-init-chown", "create web-0"}; !prefixes(rt.Log[:3], want) {
		t.Errorf("after recreate: log %v, want it to begin %v", rt.Log, want)
	}
}

// quorum is a runtime whose replicas are ready only while all three run on
// the network, as the members of a quorum database are; the containers cut
// lists are cut off from the network (the network removed under them).
type quorum struct {
	*enginetest.Runtime
	cut map[string]bool
}

func (q quorum) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	obs, err := q.Runtime.Observe(ctx, set, opts)
	running := 0
	for i, r := range obs.Replicas {
		if q.cut[r.ID] {
			obs.Replicas[i].Networks = []string{}
		} else if r.State == plan.StateRunning {
			running++
		}
	}
	for i := range obs.Replicas {
		if running < 3 && obs.Replicas[i].State == plan.StateRunning {
			obs.Replicas[i].Health = plan.HealthStarting
		}
	}
	return obs, err
}

// Replicas of an OrderedReady set with init containers that all exited at
// once, or were all cut off from their network, come back together: each is
// removed, runs its init containers and is created again whatever the
// ordinals below it do (the lowest is ready only once its peers run).
func TestAllExitedReplicasWithInitContainersComeBack(t *testing.T) {
	for _, how := range []string{"exited", "cut off"} {
		t.Run(how, func(t *testing.T) {
			rt := enginetest.New()
			s := initSet(3, "clone")
			s.PodManagementPolicy = config.Parallel // a quorum is first formed in parallel
			c, _ := initController(t, rt, s)
			q := quorum{Runtime: rt, cut: map[string]bool{}}
			c.Runtime = q
			converge(t, c)
			s.PodManagementPolicy = config.OrderedReady
			applySet(t, c, s)
			obs, _ := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
			for _, r := range obs.Replicas {
				if how == "exited" {
					rt.Exit(r.Name)
				} else {
					q.cut[r.ID] = true
				}
			}
			for range 30 {
				p, err := c.Pass(context.Background(), "web")
				if err != nil && !errors.Is(err, engine.ErrReplan) {
					t.Fatal(err)
				}
				if p.Complete {
					return
				}
			}
			s2, _, _ := c.Status(context.Background(), "web")
			t.Fatalf("the set did not come back: %d ready, waiting for %v; log\n%s", s2.ReadyReplicas, s2.Waiting, strings.Join(rt.Log, "\n"))
		})
	}
}
