package plan

import (
	"reflect"
	"testing"
	"time"
)

// ini is init container name of ordinal ord at revision rev.
func ini(ord int, name, rev, state string, code int) InitContainer {
	c := InitContainer{Name: InitContainerName("web", ord, name), Ordinal: ord, Init: name, Revision: rev,
		State: state, ExitCode: code, Created: t0.Add(-time.Second)}
	c.ID = "id-" + c.Name
	return c
}

func done(ord int, name, rev string) InitContainer { return ini(ord, name, rev, StateExited, 0) }

// initTemplates: revision b runs clone then chown; revision a only clone.
var initTemplates = map[string][]string{"b": {"clone", "chown"}, "a": {"clone"}}

func TestPlanInitContainers(t *testing.T) {
	failed := ini(0, "clone", "b", StateExited, 1)
	failed.Logs = []string{"cloning", "boom"}
	cases := []struct {
		name    string
		set     func() Input
		backoff map[int]Backoff
		want    string
	}{
		{name: "no init container yet: the first is created",
			want: "create-init web-0-init-clone at b: init container 1 of 2\n"},
		{name: "an init container that runs is waited for",
			set:  obs(ini(0, "clone", "b", StateRunning, 0)),
			want: "wait web-0: init container clone running\n"},
		{name: "one succeeded: the next is created",
			set:  obs(done(0, "clone", "b")),
			want: "create-init web-0-init-chown at b: init container 2 of 2\n"},
		{name: "all succeeded: the replica is created",
			set:  obs(done(0, "clone", "b"), done(0, "chown", "b")),
			want: "create web-0 at b: missing; its init containers succeeded\n"},
		{name: "a failed init container is removed to run again",
			set:  obs(failed),
			want: "delete-init web-0-init-clone: exited with code 1; it runs again\n"},
		{name: "a failed init container in back-off is kept and waited for",
			set: obs(failed), backoff: map[int]Backoff{0: {After: t0.Add(20 * time.Second)}},
			want: "wait web-0: init container clone exited with code 1 (last output: boom); running it again after a back-off\n"},
		{name: "a failed init container is not held back by a back-off earned at another revision",
			set: obs(failed), backoff: map[int]Backoff{0: {After: t0.Add(20 * time.Second), Revision: "x"}},
			want: "delete-init web-0-init-clone: exited with code 1; it runs again\n"},
		{name: "a dead init container failed",
			set:  obs(ini(0, "clone", "b", StateDead, 0)),
			want: "delete-init web-0-init-clone: exited with code 0; it runs again\n"},
		{name: "OrderedReady halts behind an ordinal whose init container fails",
			set: func() Input {
				in := obs(ini(1, "clone", "b", StateExited, 2))()
				in.Observed.Replicas = okN(1, "b")
				return in
			}, backoff: map[int]Backoff{1: {After: t0.Add(time.Minute)}},
			want: "wait web-1: init container clone exited with code 2; running it again after a back-off\n"},
		{name: "Parallel: each ordinal runs its own init containers",
			set: func() Input {
				in := obs(ini(0, "clone", "b", StateRunning, 0), done(1, "clone", "b"), done(2, "clone", "b"), done(2, "chown", "b"))()
				in.Set = testSet(parallel)
				return in
			},
			want: "create-init web-1-init-chown at b: init container 2 of 2\ncreate web-2 at b: missing; its init containers succeeded\nwait web-0: init container clone running\n"},
		{name: "an init container of another revision is removed first",
			set:  obs(done(0, "clone", "a"), done(0, "chown", "b")),
			want: "delete-init web-0-init-clone: at revision a, and web-0 is created at b\n"},
		{name: "a running init container of another revision is removed too",
			set:  obs(ini(0, "clone", "a", StateRunning, 0)),
			want: "delete-init web-0-init-clone: at revision a, and web-0 is created at b\n"},
		{name: "an init container the revision does not have is removed",
			set:  obs(done(0, "old", "b")),
			want: "delete-init web-0-init-old: at revision b, and web-0 is created at b\n"},
		{name: "below the partition the current revision's init containers run",
			set: func() Input {
				in := obs()()
				in.Set = testSet(partition(1))
				in.CurrentRevision = "a"
				return in
			},
			want: "create-init web-0-init-clone at a: init container 1 of 1\n"},
		{name: "after the replica started its init containers are removed, before anything else",
			set: func() Input {
				in := obs(done(0, "clone", "b"), done(0, "chown", "b"))()
				in.Observed.Replicas = []Replica{rep(0, "b", StateRunning, HealthStarting)}
				return in
			},
			want: "delete-init web-0-init-clone: web-0 exists\ndelete-init web-0-init-chown: web-0 exists\n"},
		{name: "leftovers of a replica that exited go before it is recreated",
			set: func() Input {
				in := obs(done(0, "clone", "b"))()
				in.Observed.Replicas = []Replica{rep(0, "b", StateExited, HealthNone)}
				return in
			},
			want: "delete-init web-0-init-clone: web-0 exists\n"},
		{name: "an init container being removed is waited for",
			set:  obs(ini(0, "clone", "b", StateRemoving, 0)),
			want: "wait web-0-init-clone being removed\n"},
		{name: "an init container created but never started runs afresh",
			set:  obs(ini(0, "clone", "b", StateCreated, 0)),
			want: "delete-init web-0-init-clone: created but not started; it runs again\n"},
		{name: "init containers of ordinals out of range are removed at once",
			set: func() Input {
				in := obs(ini(3, "clone", "b", StateRunning, 0))()
				in.Observed.Replicas = []Replica{ok(0, "b"), rep(1, "b", StateRunning, HealthStarting), ok(2, "b")}
				return in
			},
			want: "delete-init web-3-init-clone: scale down\nwait web-1 not ready (health: starting)\n"},
		{name: "a condemned replica goes after its init containers",
			set: func() Input {
				in := obs(done(3, "clone", "b"))()
				in.Observed.Replicas = okN(4, "b")
				return in
			},
			want: "delete-init web-3-init-clone: scale down\n"},
		{name: "a foreign container holding an init container's name",
			set: func() Input {
				in := obs()()
				in.Observed.Foreign = []Foreign{{ID: "f00", Name: "web-0-init-clone"}}
				return in
			},
			want: "wait web-0-init-clone: the name is held by container f00, which set web does not own\n"},
		{name: "a converged set with init containers plans nothing",
			set: func() Input {
				in := obs()()
				in.Observed.Replicas = okN(3, "b")
				return in
			},
			want: "complete\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := obs()()
			if c.set != nil {
				in = c.set()
			}
			in.Backoff = c.backoff
			if got := MakePlan(in).String(); got != c.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// obs is the input of testSet at update revision b with the init containers.
func obs(inits ...InitContainer) func() Input {
	return func() Input {
		return Input{Set: testSet(), CurrentRevision: "b", UpdateRevision: "b", Now: t0,
			InitContainers: initTemplates, Observed: Observed{Inits: inits}}
	}
}

func TestPlanInitBackoffRequeues(t *testing.T) {
	in := obs(ini(0, "clone", "b", StateExited, 1))()
	in.Backoff = map[int]Backoff{0: {After: t0.Add(20 * time.Second)}}
	if p := MakePlan(in); !p.RequeueAt.Equal(t0.Add(20 * time.Second)) {
		t.Errorf("RequeueAt = %v, want the end of the back-off", p.RequeueAt)
	}
}

// Init containers are not replicas: status counts none of them, and says how far
// each initializing ordinal got.
func TestStatusInitializing(t *testing.T) {
	failed := ini(1, "chown", "b", StateExited, 3)
	failed.Logs = []string{"no"}
	in := obs(done(0, "clone", "b"), done(1, "clone", "b"), failed, done(2, "clone", "a"))()
	in.Set = testSet(parallel)
	s := MakePlan(in).Status
	if len(s.Containers) != 0 || s.ReadyReplicas != 0 || len(s.Conflicts) != 0 {
		t.Errorf("init containers counted as replicas or conflicts: %+v", s)
	}
	want := []InitStatus{
		{Replica: "web-0", Ordinal: 0, Revision: "b", Succeeded: 1, Total: 2, Init: "chown", State: InitPending, Created: t0.Add(-time.Second)},
		{Replica: "web-1", Ordinal: 1, Revision: "b", Succeeded: 1, Total: 2, Init: "chown", Container: "web-1-init-chown",
			ID: "id-web-1-ini", State: InitFailed, ExitCode: 3, Logs: []string{"no"}, Created: t0.Add(-time.Second)},
	}
	if !reflect.DeepEqual(s.Initializing, want) {
		t.Errorf("Initializing\n got %+v\nwant %+v", s.Initializing, want)
	}
	in = obs(done(0, "clone", "b"), done(0, "chown", "b"))()
	if s := MakePlan(in).Status; len(s.Initializing) != 1 || s.Initializing[0].State != InitSucceeded || s.Initializing[0].Succeeded != 2 {
		t.Errorf("all succeeded: %+v", s.Initializing)
	}
}

func TestParseInitName(t *testing.T) {
	for name, want := range map[string]struct {
		ord  int
		init string
		ok   bool
	}{
		"web-1-init-clone":  {1, "clone", true},
		"/web-12-init-a-b":  {12, "a-b", true},
		"web-1-init-":       {0, "", false},
		"web-1-init-0":      {0, "", false},
		"web-01-init-clone": {0, "", false},
		"web-x-init-clone":  {0, "", false},
		"web-1":             {0, "", false},
		"db-1-init-clone":   {0, "", false},
	} {
		ord, init, ok := ParseInitName("web", name)
		if ord != want.ord || init != want.init || ok != want.ok {
			t.Errorf("ParseInitName(%q) = %d, %q, %v; want %+v", name, ord, init, ok, want)
		}
	}
	if n := InitContainerName("web", 1, "clone"); n != "web-1-init-clone" {
		t.Errorf("InitContainerName = %s", n)
	}
}

// The delete of a replica that exited carries the revision to recreate it at in
// the same pass, unless that revision has init containers: they run first.
func TestPlanRecreatesAnExitedReplicaInTheSamePass(t *testing.T) {
	for _, c := range []struct {
		inits map[string][]string
		want  string
	}{{nil, "b"}, {initTemplates, ""}} {
		in := Input{Set: testSet(), CurrentRevision: "b", UpdateRevision: "b", Now: t0, InitContainers: c.inits,
			Observed: Observed{Replicas: okN(3, "b")}}
		in.Observed.Replicas[1].State = StateExited
		p := MakePlan(in)
		if len(p.Actions) != 1 || !p.Actions[0].Failed || p.Actions[0].Recreate != c.want {
			t.Errorf("init containers %v: actions %+v, want the delete of web-1 recreating at %q", c.inits, p.Actions, c.want)
		}
	}
}
