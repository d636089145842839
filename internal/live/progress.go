package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// JSONLines turns each line written into an event object, {"time", "set",
// "message"}, the set taken from a "set: " prefix (--progress json).
type JSONLines struct {
	mu  sync.Mutex
	out io.Writer
	buf bytes.Buffer
}

// NewJSONLines writes the objects to out, one a line.
func NewJSONLines(out io.Writer) *JSONLines { return &JSONLines{out: out} }

func (j *JSONLines) Write(p []byte) (int, error) {
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
		if err := writeJSONLine(j.out, e); err != nil {
			return 0, err
		}
	}
}

// Event writes e as one object.
func (j *JSONLines) Event(e state.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = writeJSONLine(j.out, e)
}

func writeJSONLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// Block is the tty progress display (--progress tty): per set a bar of
// updated and ready replicas against desired and what it waits for, and a
// line per replica that changed, redrawn in place at the bottom of the
// terminal. What the command writes while it is on screen, to stdout or to
// stderr (Block.Above), goes above it: the block is erased, the lines
// written, and the block drawn again below them.
type Block struct {
	mu    sync.Mutex
	out   io.Writer
	width int // of the terminal: a longer line would wrap and spoil the redraw
	sets  map[string]*blockSet
	order []string
	drawn int // lines of the block on screen
}

type blockSet struct {
	desired, updated, ready int
	note                    string
	replicas                map[string]string // the last step, by replica
	order                   []string
}

// NewBlock draws on out, a terminal width columns wide (0: unknown).
func NewBlock(out io.Writer, width int) *Block {
	return &Block{out: out, width: width, sets: map[string]*blockSet{}}
}

func (b *Block) set(name string) *blockSet {
	s, ok := b.sets[name]
	if !ok {
		s = &blockSet{replicas: map[string]string{}}
		b.sets[name] = s
		b.order = append(b.order, name)
	}
	return s
}

// Event takes a step of the rollout (Controller.Report).
func (b *Block) Event(e state.Event) {
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

// Plan takes the counts of a pass (Controller.OnPlan).
func (b *Block) Plan(st state.State, p plan.Plan) {
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
func (b *Block) Write(p []byte) (int, error) {
	return b.above(b.out, p)
}

// Above returns a writer whose lines go above the block, to w: the command's
// stderr when it is the same terminal. A line written there straight would
// land below the block, and the next redraw would erase the wrong lines.
func (b *Block) Above(w io.Writer) io.Writer {
	return aboveWriter{b: b, w: w}
}

type aboveWriter struct {
	b *Block
	w io.Writer
}

func (a aboveWriter) Write(p []byte) (int, error) { return a.b.above(a.w, p) }

func (b *Block) above(w io.Writer, p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.erase()
	n, err := w.Write(p)
	b.draw()
	return n, err
}

func (b *Block) erase() {
	if b.drawn > 0 {
		fmt.Fprintf(b.out, "\x1b[%dA\x1b[J", b.drawn)
		b.drawn = 0
	}
}

func (b *Block) redraw() {
	b.erase()
	b.draw()
}

func (b *Block) draw() {
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
func (b *Block) lines() []string {
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

// bar draws ready (█) and updated but not ready (▒) against desired, width
// cells wide.
func bar(updated, ready, desired, width int) string {
	if desired <= 0 {
		return "[" + strings.Repeat(" ", width) + "]"
	}
	full := min(width, ready*width/desired)
	part := max(0, min(width, max(updated, ready)*width/desired)-full)
	return "[" + strings.Repeat("█", full) + strings.Repeat("▒", part) + strings.Repeat(" ", width-full-part) + "]"
}

// TerminalWidth is w's width in columns when it is a terminal, else 0.
func TerminalWidth(w io.Writer) int {
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
