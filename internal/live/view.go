package live

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/state"
)

// View is ostset view: an interactive terminal view of the sets and their
// replicas, kept up to date from Docker's events and the state directory.
type View struct {
	Controller *engine.Controller
	Events     engine.EventSource
	Out        io.Writer
	// Command runs an ostset command line (scale, rollout …, recreate) and
	// returns its output.
	Command func(ctx context.Context, args ...string) (string, error)
	// Shell is an interactive shell in a replica, to hand the terminal to.
	Shell func(replica string) *exec.Cmd
	// Stats reads a sample of a container's resource use; nil: none.
	Stats func(ctx context.Context, set, id string) (Usage, error)
	// Logs streams a container's output from its last n lines on, following
	// it until it stops or ctx ends; nil: no logs pane.
	Logs func(ctx context.Context, set, id string, n int) (io.ReadCloser, error)
}

// Run shows the view until the user quits or ctx ends; set, if not "", is
// the set whose replicas it shows first.
func (v View) Run(ctx context.Context, set string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes, err := daemon.WatchChanges(ctx, v.Controller.Store, v.Events, func(error) {})
	if err != nil {
		return err
	}
	c := v.Controller
	c.Report = nil
	c.Runtime = changes.Runtime(c.Runtime) // a replica that died shows exited at once
	// 10 frames a second at most: the reads come no faster (refreshEvery),
	// and the default 60 cost about a percent of a core with nothing to draw.
	p := tea.NewProgram(newViewModel(v.deps(ctx, c, changes.C), set), tea.WithContext(ctx), tea.WithOutput(v.Out), tea.WithFPS(10))
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// deps connects the view's model to the engine, the state directory and the
// caller.
func (v View) deps(ctx context.Context, c *engine.Controller, changes <-chan string) viewDeps {
	d := viewDeps{
		load: func(sets []string, set string) tea.Cmd {
			return func() tea.Msg { return snapshotMsg(readSnapshot(ctx, c, sets, set)) }
		},
		run: func(args ...string) tea.Cmd {
			return func() tea.Msg {
				out, err := v.Command(ctx, args...)
				return actionMsg{what: "ostset " + strings.Join(args, " "), args: args, lines: strings.Split(strings.TrimSpace(out), "\n"), err: err}
			}
		},
		shell: func(replica string) tea.Cmd {
			return tea.ExecProcess(v.Shell(replica), func(err error) tea.Msg { return shellDoneMsg{err} })
		},
		next: func() tea.Msg {
			select {
			case set := <-changes:
				return changedMsg{set: set}
			case <-ctx.Done():
				return nil
			}
		},
	}
	if v.Stats != nil {
		d.stats = func(set string, ids map[string]string) tea.Cmd {
			return func() tea.Msg {
				samples := map[string]Usage{}
				var mu sync.Mutex
				var wg sync.WaitGroup
				for name, id := range ids {
					wg.Go(func() {
						if s, err := v.Stats(ctx, set, id); err == nil {
							mu.Lock()
							samples[name] = s
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				return statsMsg{set: set, samples: samples}
			}
		}
	}
	if v.Logs != nil {
		d.follow = func(set, id string) *logStream {
			return followLogs(ctx, func(ctx context.Context) (io.ReadCloser, error) { return v.Logs(ctx, set, id, logLines) })
		}
	}
	return d
}

// readSnapshot reads the status of the named sets (nil: every set in the
// store), and set's events.
func readSnapshot(ctx context.Context, c *engine.Controller, only []string, set string) viewSnapshot {
	pid, running := c.Store.DaemonRunning()
	snap := viewSnapshot{Detail: map[string]viewDetail{}, Daemon: daemonInfo{Running: running, PID: pid}, At: time.Now()}
	names := only
	if names == nil {
		names, _ = c.Store.List()
	} else {
		snap.Only = []string{}
	}
	for _, name := range names {
		status, st, err := c.Status(ctx, name)
		if only != nil && (err == nil || errors.Is(err, state.ErrUnknownSet)) {
			snap.Only = append(snap.Only, name) // read, or gone; a set that failed to read keeps its row
		}
		if err != nil {
			continue
		}
		snap.Sets = append(snap.Sets, NewSetRow(status, st))
		d := viewDetail{State: st, Status: status}
		if name == set {
			events, _, _ := c.Store.Events(name, 0)
			d.Events = events[max(0, len(events)-20):]
		}
		snap.Detail[name] = d
	}
	return snap
}
