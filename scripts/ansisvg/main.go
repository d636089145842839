// Command ansisvg reads a terminal screen with ANSI colour escapes (tmux
// capture-pane -e -p) on stdin and writes it as an SVG on stdout:
//
//	go run ./scripts/ansisvg -cols 120 -rows 32 < screen.ansi > docs/view.svg
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ostset/ostset/internal/ansisvg"
)

func main() {
	cols := flag.Int("cols", 80, "screen width in cells")
	rows := flag.Int("rows", 24, "screen height in cells")
	flag.Parse()
	text, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = ansisvg.Render(os.Stdout, string(text), *cols, *rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ansisvg:", err)
		os.Exit(1)
	}
}
