package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// Progress modes (--progress).
const (
	progressAuto  = "auto"
	progressTTY   = "tty"
	progressPlain = "plain"
	progressJSON  = "json"
)

// progressFlag registers --progress on a command that waits for a rollout.
func progressFlag(cmd *cobra.Command) {
	cmd.Flags().String("progress", progressAuto, "how to show progress: auto (tty on a terminal, else plain), tty (a block redrawn in place), plain (a line per step) or json (an event per line)")
}

// setupProgress chooses how the command shows progress, before it runs: in
// tty mode other output goes above the live block; in json mode every line
// becomes an object, so that a tool reads one event per line.
func (a *app) setupProgress(cmd *cobra.Command) error {
	if cmd.Flags().Lookup("progress") == nil {
		return nil
	}
	mode := a.v.GetString("progress")
	switch mode {
	case "", progressAuto:
		mode = progressPlain
		if isTerminal(a.stdout) && os.Getenv("TERM") != "dumb" {
			mode = progressTTY
		}
	case progressTTY, progressPlain, progressJSON:
	default:
		return invalidf("--progress %q: want auto, tty, plain or json", mode)
	}
	switch mode {
	case progressTTY:
		b := &liveBlock{out: a.stdout, sets: map[string]*liveSet{}, width: terminalWidth(a.stdout)}
		a.live = b
		a.stdout = b
	case progressJSON:
		a.jsonOut = a.stdout
		a.stdout = &jsonLines{out: a.stdout}
	}
	return nil
}

// reportFor is what a controller's Report is in the chosen mode.
func (a *app) reportFor() func(state.Event) {
	switch {
	case a.live != nil:
		return a.live.event
	case a.jsonOut != nil:
		return func(e state.Event) { _ = printStructuredLine(a.jsonOut, e) }
	}
	return a.printEvent
}

// jsonLines turns each line written into an event object, {"time", "set",
// "message"}, the set taken from a "set: " prefix.
type jsonLines struct {
	mu  sync.Mutex
	out io.Writer
	buf bytes.Buffer
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf.Write(p)
	for {
		line, err := j.buf.ReadString('\n')
		if err != nil {
			j.buf.WriteString(line) // an unfinished line waits for its end
			return len(p), nil
		}
		e := state.Event{Time: time.Now(), Message: strings.TrimSuffix(line, "\n")}
		if set, msg, ok := strings.Cut(e.Message, ": "); ok && !strings.ContainsAny(set, " \t") {
			e.Set, e.Message = set, msg
		}
		if err := printStructuredLine(j.out, e); err != nil {
			return 0, err
		}
	}
}

// liveBlock is the tty progress display: per set a bar of updated and ready
// replicas against desired and what it waits for, and a line per replica
// that changed, redrawn in place. Lines written to it (the command's own
// output) go above the block, which is drawn again below them.
type liveBlock struct {
	mu    sync.Mutex
	out   io.Writer
	width int // of the terminal: a longer line would wrap and spoil the redraw
	sets  map[string]*liveSet
	order []string
	drawn int // lines of the block on screen
}

type liveSet struct {
	desired, updated, ready int
	note                    string
	replicas                map[string]string // the last step, by replica
	order                   []string
}

func (b *liveBlock) set(name string) *liveSet {
	s, ok := b.sets[name]
	if !ok {
		s = &liveSet{replicas: map[string]string{}}
		b.sets[name] = s
		b.order = append(b.order, name)
	}
	return s
}

func (b *liveBlock) event(e state.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.set(e.Set)
	if e.Replica == "" {
		s.note = e.Message
	} else {
		if _, ok := s.replicas[e.Replica]; !ok {
			s.order = append(s.order, e.Replica)
		}
		s.replicas[e.Replica] = strings.TrimPrefix(e.Message, e.Replica+" ")
	}
	b.redraw()
}

// plan takes the counts of a pass (Controller.OnPlan).
func (b *liveBlock) plan(st state.State, p plan.Plan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.set(st.Spec.Name)
	s.desired, s.updated, s.ready = p.Status.Replicas, p.Status.UpdatedReplicas, p.Status.ReadyReplicas
	if p.Complete {
		s.note = "" // what it waited for is over
	}
	b.redraw()
}

// Write puts the command's own lines above the block.
func (b *liveBlock) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.erase()
	n, err := b.out.Write(p)
	b.draw()
	return n, err
}

func (b *liveBlock) erase() {
	if b.drawn > 0 {
		fmt.Fprintf(b.out, "\x1b[%dA\x1b[J", b.drawn)
		b.drawn = 0
	}
}

func (b *liveBlock) redraw() {
	b.erase()
	b.draw()
}

func (b *liveBlock) draw() {
	lines := b.lines()
	for _, l := range lines {
		if r := []rune(l); b.width > 1 && len(r) >= b.width {
			l = string(r[:b.width-2]) + "…"
		}
		fmt.Fprintf(b.out, "%s\n", l)
	}
	b.drawn = len(lines)
}

// lines renders the block.
func (b *liveBlock) lines() []string {
	var out []string
	for _, name := range b.order {
		s := b.sets[name]
		if s.desired > 0 || s.updated > 0 || s.ready > 0 {
			out = append(out, fmt.Sprintf("%s %s updated %d/%d, ready %d/%d  %s", name, bar(s.updated, s.ready, s.desired, 20),
				s.updated, s.desired, s.ready, s.desired, s.note))
		} else if s.note != "" {
			out = append(out, name+": "+s.note)
		}
		for _, r := range s.order {
			out = append(out, fmt.Sprintf("  %-20s %s", r, s.replicas[r]))
		}
	}
	return out
}

// bar draws ready (█) and updated but not ready (▒) against desired.
func bar(updated, ready, desired, width int) string {
	if desired <= 0 {
		return "[" + strings.Repeat(" ", width) + "]"
	}
	full := min(width, ready*width/desired)
	part := max(0, min(width, max(updated, ready)*width/desired)-full)
	return "[" + strings.Repeat("█", full) + strings.Repeat("▒", part) + strings.Repeat(" ", width-full-part) + "]"
}

// terminalWidth is w's width in columns when it is a terminal, else 0.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}
