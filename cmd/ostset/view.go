package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
)

func newViewCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "view [SET]",
		Short: "An interactive terminal view of the sets and their replicas",
		Long: `An interactive terminal view of the sets (or of SET's replicas), kept up to date
from Docker's events and the state directory. Keys (? lists them): enter shows
a set's replicas, + and - scale, s scales to a number, r restarts, u undoes, p
sets the partition, P pauses and R resumes the rollout, d recreates the selected
replica (after a y), x opens a shell in it, / filters, q quits. Every action
runs the same command a user would type, and its outcome shows under the table.

It needs a terminal; without one it exits 2 (use ostset get -w).`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !isTerminal(a.stdout) || !term.IsTerminal(int(os.Stdin.Fd())) {
				return invalidf("ostset view needs a terminal; without one, use 'ostset get -w' (or 'ostset get SET -w')")
			}
			set := ""
			if len(args) == 1 {
				if _, err := a.store().Load(args[0]); err != nil {
					return err
				}
				set = args[0]
			}
			return a.runView(cmd.Context(), set)
		},
	}
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func (a *app) runView(ctx context.Context, set string) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	c.Report = nil
	src, err := a.eventSource()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes, err := daemon.WatchChanges(ctx, a.store(), src, func(error) {})
	if err != nil {
		return err
	}
	// 10 frames a second at most: the snapshots come no faster (refreshEvery), and
	// the default 60 cost about a percent of a core with nothing to draw.
	p := tea.NewProgram(newViewModel(a.viewDeps(ctx, c, changes), set), tea.WithContext(ctx), tea.WithOutput(a.stdout), tea.WithFPS(10))
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// viewDeps connects the view's model to the state directory, Docker and
// the command line.
func (a *app) viewDeps(ctx context.Context, c *engine.Controller, changes <-chan string) viewDeps {
	self, _ := os.Executable()
	return viewDeps{
		load: func(set, replica string) tea.Cmd {
			return func() tea.Msg { return snapshotMsg(a.viewSnapshot(ctx, c, set, replica)) }
		},
		run: func(args ...string) tea.Cmd {
			return func() tea.Msg {
				var out bytes.Buffer
				what := "ostset " + strings.Join(args, " ")
				err := Run(ctx, append(args, "--state-dir", a.store().Dir), &out, &out)
				return actionMsg{what: what, lines: strings.Split(strings.TrimSpace(out.String()), "\n"), err: err}
			}
		},
		shell: func(replica string) tea.Cmd {
			sh := exec.Command(self, "exec", "-it", replica, "--state-dir", a.store().Dir, "--", "sh", "-c", "command -v bash >/dev/null && exec bash || exec sh")
			return tea.ExecProcess(sh, func(err error) tea.Msg { return shellDoneMsg{err} })
		},
		stats: func(set string, ids map[string]string) tea.Cmd {
			rt, ok := c.Runtime.(*docker.Runtime)
			if !ok {
				return nil
			}
			return func() tea.Msg {
				samples := map[string]docker.StatsSample{}
				var mu sync.Mutex
				var wg sync.WaitGroup
				for name, id := range ids {
					wg.Go(func() {
						if s, err := rt.Stats(ctx, set, id); err == nil {
							mu.Lock()
							samples[name] = s
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				return statsMsg{set: set, samples: samples}
			}
		},
		next: func() tea.Msg {
			select {
			case <-changes:
				return changedMsg{}
			case <-ctx.Done():
				return nil
			}
		},
	}
}

// viewSnapshot reads every set's status, and for set its events and the
// selected replica's last log lines.
func (a *app) viewSnapshot(ctx context.Context, c *engine.Controller, set, replica string) viewSnapshot {
	snap := viewSnapshot{Detail: map[string]viewDetail{}, Daemon: a.daemon(), At: time.Now()}
	names, _ := a.store().List()
	for _, name := range names {
		status, st, err := c.Status(ctx, name)
		if err != nil {
			continue
		}
		snap.Sets = append(snap.Sets, newSetRow(status, st))
		d := viewDetail{State: st, Status: status}
		if name == set {
			events, _, _ := a.store().Events(name, 0)
			d.Events = events[max(0, len(events)-20):]
			for _, r := range status.Containers {
				if r.Name == replica {
					d.Logs, _ = c.Runtime.LogTail(ctx, name, r.ID, 8)
					d.LogsFor = replica
				}
			}
		}
		snap.Detail[name] = d
	}
	return snap
}
