package main

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/docker"
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
		Sets: []setRow{newSetRow(dbStatus, dbState), newSetRow(webStatus, webState)},
		Detail: map[string]viewDetail{
			"web": {State: webState, Status: webStatus, LogsFor: "web-0", Logs: []string{"listening on :8080"},
				Events: []state.Event{{Time: viewNow.Add(-time.Minute), Message: "web-2 created (revision web-bbb)"}}},
			"db": {State: dbState, Status: dbStatus},
		},
	}
}

// recordingDeps records the command lines the view runs.
func recordingDeps(ran *[]string) viewDeps {
	return viewDeps{
		load:  func(string, string) tea.Cmd { return nil },
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
	for _, s := range []docker.StatsSample{
		{CPU: 0, System: 0, OnlineCPUs: 2, Memory: 10 << 20, At: viewNow},
		{CPU: 50e6, System: 1e9, OnlineCPUs: 2, Memory: 12 << 20, At: viewNow.Add(5 * time.Second)},
	} {
		next, _ := m.Update(statsMsg{set: "web", samples: map[string]docker.StatsSample{"web-0": s}})
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
		{"scale down", []string{"j", "-"}, []string{"scale web --replicas 2"}},
		{"scale to a number", []string{"j", "s", "7", "enter"}, []string{"scale web --replicas 7"}},
		{"partition", []string{"j", "p", "1", "enter"}, []string{"rollout partition web 1"}},
		{"restart, undo, pause, resume", []string{"j", "r", "u", "P", "R"}, []string{"rollout restart web", "rollout undo web", "rollout pause web", "rollout resume web"}},
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

// Redraws are throttled: a burst of changes schedules one snapshot.
func TestViewThrottlesRefreshes(t *testing.T) {
	var ran []string
	m := settledView(&ran, "")
	next, cmd := m.Update(changedMsg{})
	if cmd == nil || !next.(viewModel).pending {
		t.Fatal("a change scheduled no refresh")
	}
	again, _ := next.Update(changedMsg{})
	if !again.(viewModel).pending {
		t.Fatal("lost the pending refresh")
	}
	done, _ := again.Update(snapshotMsg(viewFixture()))
	if done.(viewModel).pending {
		t.Error("a snapshot left a refresh pending")
	}
}
