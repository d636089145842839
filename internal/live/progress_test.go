package live

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ostset/ostset/engine/state"
)

// screenOf plays what was written to a terminal: lines, cursor up (ESC [n A)
// and erase below (ESC [J), as the block uses them.
func screenOf(out string) []string {
	var lines []string
	row := 0
	esc := regexp.MustCompile(`^\x1b\[(\d*)([AJ])`)
	for len(out) > 0 {
		if m := esc.FindStringSubmatch(out); m != nil {
			if m[2] == "A" {
				n, _ := strconv.Atoi(m[1])
				row = max(0, row-n)
			} else {
				lines = lines[:min(row, len(lines))]
			}
			out = out[len(m[0]):]
			continue
		}
		line, rest, _ := strings.Cut(out, "\n")
		if row < len(lines) {
			lines[row] = line
		} else {
			lines = append(lines, line)
		}
		row++
		out = rest
	}
	return lines
}

// A line written to stderr, on the terminal the block is drawn on, goes
// above the block, which stays whole below it.
func TestBlockKeepsStderrLinesAbove(t *testing.T) {
	var term bytes.Buffer
	b := NewBlock(&term, 0)
	stderr := b.Above(&term)
	b.Event(state.Event{Set: "web", Replica: "web-0", Message: "web-0 created"})
	b.Event(state.Event{Set: "web", Replica: "web-1", Message: "web-1 created"})
	fmt.Fprintln(stderr, "warning: something")
	b.Event(state.Event{Set: "web", Replica: "web-1", Message: "web-1 ready"})
	fmt.Fprintln(b, "web: rollout complete")
	got := strings.Join(screenOf(term.String()), "\n")
	want := "warning: something\nweb: rollout complete\n  web-0                created\n  web-1                ready"
	if got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
}
