package live

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

var viewNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// viewFixture is a settled snapshot: web has 3 replicas, partition 2, web-2
// at the update revision; db is paused.
func viewFixture() viewSnapshot {
	three, two := 3, 2
	web := config.Set{Name: "web", Replicas: &three, Template: config.Template{Image: "ostset/web:2",
		Ports: []config.Port{{ContainerPort: 8080, HostPort: 18080}}},
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	web.ApplyDefaults()
	web.UpdateStrategy.RollingUpdate.Partition = two
	db := config.Set{Name: "db", Template: config.Template{Image: "redis"}}
	db.ApplyDefaults()
	created := viewNow.Add(-2 * time.Hour)
	c := func(ord int, rev string, ready bool) plan.ContainerStatus {
		s := plan.ContainerStatus{Name: plan.ReplicaName("web", ord), Ordinal: ord, Revision: rev, State: "running", Health: "healthy", Ready: ready, Created: created}
		if !ready {
			s.Health, s.Reason = "unhealthy", `health: "connection refused"`
			s.NotReady = &plan.NotReadyDetail{Restarts: 2}
		}
		return s
	}
	webStatus := plan.Status{Name: "web", Replicas: 3, ReadyReplicas: 2, UpdatedReplicas: 1, CurrentReplicas: 2, AvailableReplicas: 2,
		CurrentRevision: "web-aaa", UpdateRevision: "web-bbb",
		Containers: []plan.ContainerStatus{c(0, "web-aaa", true), c(1, "web-aaa", true), c(2, "web-bbb", false)}}
	dbStatus := plan.Status{Name: "db", Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentReplicas: 1, AvailableReplicas: 1,
		CurrentRevision: "db-ccc", UpdateRevision: "db-ccc", Containers: []plan.ContainerStatus{{Name: "db-0", State: "running", Ready: true, Revision: "db-ccc", Created: created}}}
	webState := state.State{Spec: web, Created: created}
	dbState := state.State{Spec: db, Created: created, Paused: true}
	return viewSnapshot{
		Sets: []SetRow{NewSetRow(dbStatus, dbState), NewSetRow(webStatus, webState)},
		Detail: map[string]viewDetail{
			"web": {State: webState, Status: webStatus,
				Events: []state.Event{{Time: viewNow.Add(-time.Minute), Message: "web-2 created (revision web-bbb)"}}},
			"db": {State: dbState, Status: dbStatus},
		},
	}
}

// recordingDeps records the command lines the view runs.
func recordingDeps(ran *[]string) viewDeps {
	return viewDeps{
		load:  func([]string, string) tea.Cmd { return nil },
		run:   func(args ...string) tea.Cmd { *ran = append(*ran, strings.Join(args, " ")); return nil },
		shell: func(r string) tea.Cmd { *ran = append(*ran, "shell "+r); return nil },
		next:  nil,
	}
}

func settledView(ran *[]string, set string) viewModel {
	m := newViewModel(recordingDeps(ran), set)
	next, _ := m.Update(snapshotMsg(viewFixture()))
	return next.(viewModel)
}

func screen(m viewModel) string {
	lines := strings.Split(ansi.Strip(m.render(viewNow)), "\n")
	for i := range lines {
		lines[i] = strings.TrimLeft(strings.TrimRight(lines[i], " "), "")
	}
	return strings.Join(lines, "\n")
}

func TestViewGoldenSets(t *testing.T) {
	var ran []string
	got := screen(settledView(&ran, ""))
	want := `ostset view: sets  no daemon runs: nothing heals while you watch, only the actions you take here

NAME  READY  UPDATED  AVAILABLE  CURRENT  UPDATE   POLICY                               ROLLOUT       AGE
db    1/1    1        1          db-ccc   db-ccc   OrderedReady/RollingUpdate (paused)  [██████████]  2h
web   2/3    1        2          web-aaa  web-bbb  OrderedReady/RollingUpdate           [███       ]  2h

enter replicas of the set • / filter • ? keys • q quit`
	if got != want {
		t.Errorf("sets view:\n%s\nwant:\n%s", got, want)
	}
}

func TestViewGoldenReplicas(t *testing.T) {
	var ran []string
	m := settledView(&ran, "web")
	// Two stats samples of web-0, 5 s apart: CPU is the share between them.
	m = withLogs(t, m, "listening on :8080")
	for _, s := range []Usage{
		{CPU: 0, System: 0, OnlineCPUs: 2, Memory: 10 << 20, At: viewNow},
		{CPU: 50e6, System: 1e9, OnlineCPUs: 2, Memory: 12 << 20, At: viewNow.Add(5 * time.Second)},
	} {
		next, _ := m.Update(statsMsg{set: "web", samples: map[string]Usage{"web-0": s}})
		m = next.(viewModel)
	}
	got := screen(m)
	want := `ostset view: web  no daemon runs: nothing heals while you watch, only the actions you take here

   NAME   STATE    HEALTH     READY  REVISION  RESTARTS  AGE  CPU    MEM    PORTS            VOLUMES     REASON
   web-0  running  healthy    1/1    web-aaa   -         2h   10.0%  12MiB  18080->8080/tcp  data-web-0  -
   web-1  running  healthy    1/1    web-aaa   -         2h   -      -      18081->8080/tcp  data-web-1  -
  ── partition 2: ordinals below keep revision web-aaa ──
*  web-2  running  unhealthy  0/1    web-bbb   2         2h   -      -      18082->8080/tcp  data-web-2  health: "connection refused"
* at the update revision web-bbb

events
  ` + viewNow.Add(-time.Minute).Local().Format(time.TimeOnly) + ` web-2 created (revision web-bbb)

logs of web-0
  listening on :8080

enter replicas of the set • / filter • ? keys • q quit`
	if got != want {
		t.Errorf("replicas view:\n%s\nwant:\n%s", got, want)
	}
}

func keys(m viewModel, ks ...string) viewModel {
	for _, k := range ks {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		next, _ := m.Update(msg)
		m = next.(viewModel)
	}
	return m
}

// Scripted key flows: each action runs the command line a user would type.
func TestViewKeyFlows(t *testing.T) {
	cases := []struct {
		name string
		keys []string
		want []string
	}{
		{"scale up the selected set", []string{"j", "+"}, []string{"scale web --replicas 4"}},
		{"scale down asks first: y", []string{"j", "-", "y"}, []string{"scale web --replicas 2"}},
		{"scale down asks first: n", []string{"j", "-", "n"}, nil},
		{"scale down asks first: a second - is a no", []string{"j", "-", "-"}, nil},
		{"scale to a number", []string{"j", "s", "7", "enter"}, []string{"scale web --replicas 7"}},
		{"partition", []string{"j", "p", "1", "enter"}, []string{"rollout partition web 1"}},
		{"restart asks first: n", []string{"j", "r", "n"}, nil},
		{"restart asks first: a second r is a no", []string{"j", "r", "r"}, nil},
		{"undo asks first: n", []string{"j", "u", "n"}, nil},
		{"restart, undo (each after a y), pause, resume", []string{"j", "r", "y", "u", "y", "P", "R"}, []string{"rollout restart web", "rollout undo web", "rollout pause web", "rollout resume web"}},
		{"recreate asks first: n", []string{"j", "enter", "down", "d", "n"}, nil},
		{"recreate asks first: y", []string{"j", "enter", "down", "d", "y"}, []string{"recreate web-1"}},
		{"shell in the selected replica", []string{"j", "enter", "down", "down", "x"}, []string{"shell web-2"}},
		{"filter, then act on what is left", []string{"/", "w", "e", "enter", "+"}, []string{"scale web --replicas 4"}},
		{"help hides keys' actions", []string{"?", "+"}, nil},
	}
	for _, c := range cases {
		var ran []string
		keys(settledView(&ran, ""), c.keys...)
		if strings.Join(ran, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: ran %q, want %q", c.name, ran, c.want)
		}
	}
}

// The question a key asks before it stops replicas, and the answer, show
// under the table.
func TestViewAsksBeforeARestart(t *testing.T) {
	var ran []string
	m := keys(settledView(&ran, ""), "j", "r")
	if got := screen(m); !strings.Contains(got, "\nrestart every replica of web (rollout restart)? (y/n)\n") {
		t.Fatalf("r does not ask:\n%s", got)
	}
	m = keys(m, "n")
	if got := screen(m); !strings.Contains(got, "restart every replica of web (rollout restart)? no") || len(ran) != 0 {
		t.Errorf("after n: ran %q\n%s", ran, got)
	}
}

// Each + counts from the replicas asked for last, not from the last read:
// three quick presses on a set of 3 ask for 4, 5 and 6. The scale commands
// of a set run one at a time, in order, so the last asked for is the last
// run; a press counts from the read again once a read that began after the
// last scale ended is taken in, or once a scale failed.
func TestViewScaleKeysCountFromWhatWasAskedFor(t *testing.T) {
	var ran []string
	now := viewNow
	deps := recordingDeps(&ran)
	deps.now = func() time.Time { now = now.Add(time.Second); return now }
	m := newViewModel(deps, "")
	update := func(msg tea.Msg) {
		t.Helper()
		next, _ := m.Update(msg)
		m = next.(viewModel)
	}
	scaled := func(n string) actionMsg {
		return actionMsg{what: "ostset scale web --replicas " + n, args: []string{"scale", "web", "--replicas", n}}
	}
	expect := func(step string, want ...string) {
		t.Helper()
		if strings.Join(ran, "|") != strings.Join(want, "|") {
			t.Fatalf("%s: ran %q, want %q", step, ran, want)
		}
		ran = nil
	}
	update(snapshotMsg(viewFixture()))
	m = keys(m, "j", "+", "+", "+")
	expect("three quick presses of + on 3 replicas", "scale web --replicas 4")
	update(scaled("4"))
	expect("the first scale ended: the last number asked for meanwhile", "scale web --replicas 6")
	update(scaled("6"))
	expect("the last asked for ended")
	m = keys(m, "+")
	expect("a press before any read since", "scale web --replicas 7")
	update(scaled("7"))
	update(snapshotMsg(viewFixture())) // a read that began before the scale ended
	m = keys(m, "s", "9", "enter")
	expect("s counts too", "scale web --replicas 9")
	update(scaled("9"))
	update(snapshotMsg(viewFixture())) // began before the end
	m = keys(m, "-", "y")
	expect("- counts from the last asked for", "scale web --replicas 8")
	update(scaled("8"))
	update(snapshotMsg(viewFixture())) // began before the end; the next began after it
	update(snapshotMsg(viewFixture()))
	m = keys(m, "+")
	expect("a read since the last scale ended shows what is", "scale web --replicas 4")
	m = keys(m, "+")
	update(actionMsg{what: "ostset scale web --replicas 4", args: []string{"scale", "web", "--replicas", "4"}, err: fmt.Errorf("timed out")})
	expect("a scale failed: what was asked for meanwhile is not run")
	m = keys(m, "+")
	expect("after a failure, a press counts from the read", "scale web --replicas 4")
}

// withLogs gives the model a log stream for its selected replica (the view
// asks for one once a replica is selected) and feeds it lines.
func withLogs(t *testing.T, m viewModel, lines ...string) viewModel {
	t.Helper()
	s := newLogStream(nil)
	m.deps.follow = func(set, id string) *logStream { return s }
	m.logKey = ""
	cmd := m.followLogs()
	if cmd == nil || m.logs != s {
		t.Fatal("no log stream for the selected replica")
	}
	s.push(lines...)
	next, _ := m.Update(cmd())
	return next.(viewModel)
}

// loads records the reads the model asks for.
type loads struct{ calls [][]string }

func (l *loads) deps(ran *[]string, now *time.Time) viewDeps {
	d := recordingDeps(ran)
	d.load = func(sets []string, _ string) tea.Cmd {
		l.calls = append(l.calls, sets)
		return func() tea.Msg { return nil }
	}
	d.now = func() time.Time { return *now }
	return d
}

// A change is read at once, and only the set it is about; changes during a
// read, or less than refreshEvery after one began, are read together when
// that time is up: about 10 reads a second at most.
func TestViewReadsAChangeAtOnceThenThrottles(t *testing.T) {
	var ran []string
	now := viewNow
	var l loads
	m := newViewModel(l.deps(&ran, &now), "")
	next, _ := m.Update(snapshotMsg(viewFixture()))
	m = next.(viewModel)
	l.calls = nil

	next, cmd := m.Update(changedMsg{set: "web"})
	m = next.(viewModel)
	if cmd == nil || len(l.calls) != 1 || strings.Join(l.calls[0], ",") != "web" {
		t.Fatalf("a change of web: reads %q, want web at once", l.calls)
	}
	// Changes while that read is under way wait for it.
	for _, set := range []string{"db", "web", "db"} {
		next, _ = m.Update(changedMsg{set: set})
		m = next.(viewModel)
	}
	if len(l.calls) != 1 {
		t.Fatalf("reads during a read: %q", l.calls)
	}
	// The read ends 20 ms later: the next may begin 80 ms after that.
	now = now.Add(20 * time.Millisecond)
	next, cmd = m.Update(snapshotMsg(viewSnapshot{Only: []string{"web"}, Sets: viewFixture().Sets[1:], Detail: map[string]viewDetail{"web": viewFixture().Detail["web"]}}))
	m = next.(viewModel)
	if len(l.calls) != 1 || cmd == nil || !m.waiting {
		t.Fatalf("after the read: reads %q, waiting %v; want a tick", l.calls, m.waiting)
	}
	if len(m.snap.Sets) != 2 || m.snap.Detail["db"].Status.Name != "db" {
		t.Fatalf("a read of web lost db: %+v", m.snap.Sets)
	}
	now = now.Add(80 * time.Millisecond)
	next, _ = m.Update(refreshMsg{})
	m = next.(viewModel)
	if len(l.calls) != 2 || strings.Join(l.calls[1], ",") != "db,web" {
		t.Fatalf("the changes since: reads %q, want db,web once", l.calls)
	}
	// A set gone from the store leaves the list; "" reads every set.
	now = now.Add(time.Second)
	next, _ = m.Update(snapshotMsg(viewSnapshot{Only: []string{"db", "web"}, Sets: viewFixture().Sets[1:], Detail: map[string]viewDetail{"web": viewFixture().Detail["web"]}}))
	m = next.(viewModel)
	if len(m.snap.Sets) != 1 || m.snap.Sets[0].Name != "web" {
		t.Fatalf("db deleted: sets %+v", m.snap.Sets)
	}
	next, _ = m.Update(changedMsg{})
	m = next.(viewModel)
	if len(l.calls) != 3 || l.calls[2] != nil {
		t.Fatalf("a change of every set: reads %q, want nil (all)", l.calls)
	}
	// Nothing changed: nothing is read.
	next, _ = m.Update(snapshotMsg(viewFixture()))
	m = next.(viewModel)
	now = now.Add(time.Second)
	if _, cmd := m.Update(refreshMsg{}); cmd != nil || len(l.calls) != 3 {
		t.Errorf("an idle tick read %q", l.calls)
	}
}

// The logs pane follows the selected replica: lines show as they come, and
// selecting another replica (or its container being replaced) stops that
// stream and follows the new one.
func TestViewFollowsTheSelectedReplicasLogs(t *testing.T) {
	var ran []string
	streams := map[string]*logStream{}
	deps := recordingDeps(&ran)
	deps.follow = func(set, id string) *logStream {
		ctx, cancel := context.WithCancel(context.Background())
		s := newLogStream(cancel)
		s.ctx = ctx
		streams[id] = s
		return s
	}
	fx := viewFixture()
	web := fx.Detail["web"]
	for i := range web.Status.Containers {
		web.Status.Containers[i].ID = fmt.Sprintf("id%d", i)
	}
	fx.Detail["web"] = web
	m := newViewModel(deps, "web")
	next, cmd := m.Update(snapshotMsg(fx))
	m = next.(viewModel)
	s0 := streams["id0"]
	if s0 == nil || cmd == nil {
		t.Fatal("no stream for the selected web-0")
	}
	take := func(s *logStream, lines ...string) {
		t.Helper()
		s.push(lines...)
		next, _ := m.Update(s.next())
		m = next.(viewModel)
	}
	take(s0, "one")
	take(s0, "two", "three")
	if got := screen(m); !strings.Contains(got, "logs of web-0\n  one\n  two\n  three\n") {
		t.Fatalf("the pane does not follow web-0:\n%s", got)
	}
	for i := range 20 {
		take(s0, fmt.Sprint("line ", i))
	}
	if len(m.logLines) != logLines || m.logLines[logLines-1] != "line 19" {
		t.Errorf("kept %q, want the last %d lines", m.logLines, logLines)
	}
	m = keys(m, "down")
	if s0.ctx.Err() == nil {
		t.Error("the stream of web-0 goes on after web-1 was selected")
	}
	s1 := streams["id1"]
	if s1 == nil {
		t.Fatal("no stream for web-1")
	}
	take(s1, "web-1 says hi")
	if got := screen(m); !strings.Contains(got, "logs of web-1\n  web-1 says hi\n") || strings.Contains(got, "line 19") {
		t.Fatalf("the pane after selecting web-1:\n%s", got)
	}
	// A late batch of the old stream is not shown.
	s0.push("stale")
	next, _ = m.Update(logMsg{from: s0, lines: []string{"stale"}})
	if strings.Contains(screen(next.(viewModel)), "stale") {
		t.Error("a line of web-0's stream shows under web-1")
	}
	// web-1 replaced by a new container: a new stream.
	web.Status.Containers[1].ID = "id1b"
	fx.Detail["web"] = web
	next, _ = m.Update(snapshotMsg(fx))
	m = next.(viewModel)
	if streams["id1b"] == nil || s1.ctx.Err() == nil {
		t.Error("a new container of web-1 is not followed")
	}
}
