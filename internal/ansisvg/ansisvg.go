// Package ansisvg draws a terminal screen, as text with ANSI colour escapes
// (tmux capture-pane -e), as an SVG picture: the README's picture of ostset
// view is made from the real view with it (scripts/view-picture.sh).
package ansisvg

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// style is a cell's look: colours as #rrggbb ("" for the default).
type style struct {
	fg, bg                     string
	bold, dim, italic, reverse bool
	underline                  bool
}

type cell struct {
	r rune
	s style
}

// Theme colours: the default foreground and background, and the 16 ANSI colours.
const (
	defaultFG = "#d0d0d0"
	defaultBG = "#1c1c1c"
)

var ansi16 = [16]string{
	"#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
	"#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
}

// Parse reads the screen's lines into cells, applying SGR escapes (ESC [ … m);
// other escapes are dropped.
func Parse(text string) [][]cell {
	var lines [][]cell
	var cur style
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		var row []cell
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					cur = apply(cur, line[i+2:j])
				}
				i = j + 1
				continue
			}
			r, n := decodeRune(line[i:])
			i += n
			if r == '\r' {
				continue
			}
			row = append(row, cell{r: r, s: cur})
			if runewidth.RuneWidth(r) == 2 {
				row = append(row, cell{r: 0, s: cur})
			}
		}
		lines = append(lines, row)
	}
	return lines
}

func decodeRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 1
}

// apply changes s by the SGR parameters params ("1;31", "38;5;208", "").
func apply(s style, params string) style {
	if params == "" {
		return style{}
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.underline = true
		case n == 7:
			s.reverse = true
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.underline = false
		case n == 27:
			s.reverse = false
		case n >= 30 && n <= 37:
			s.fg = ansi16[n-30]
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = ansi16[n-40]
		case n == 49:
			s.bg = ""
		case n >= 90 && n <= 97:
			s.fg = ansi16[n-90+8]
		case n >= 100 && n <= 107:
			s.bg = ansi16[n-100+8]
		case n == 38 || n == 48:
			c, used := extended(ps[i+1:])
			i += used
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
	return s
}

// extended reads 5;N (256 colours) or 2;R;G;B after 38 or 48.
func extended(ps []string) (string, int) {
	if len(ps) >= 2 && ps[0] == "5" {
		n, _ := strconv.Atoi(ps[1])
		return color256(n), 2
	}
	if len(ps) >= 4 && ps[0] == "2" {
		r, _ := strconv.Atoi(ps[1])
		g, _ := strconv.Atoi(ps[2])
		b, _ := strconv.Atoi(ps[3])
		return fmt.Sprintf("#%02x%02x%02x", r&255, g&255, b&255), 4
	}
	return "", len(ps)
}

func color256(n int) string {
	switch {
	case n < 16:
		return ansi16[n&15]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	case n < 256:
		v := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
	return ""
}

// Cell size in pixels and the font.
const (
	cellW    = 8.4
	cellH    = 17
	fontSize = 14
	pad      = 10
)

// Render writes the screen as an SVG of cols × rows cells (at least the
// text's size).
func Render(w io.Writer, text string, cols, rows int) error {
	lines := Parse(text)
	for _, l := range lines {
		cols = max(cols, len(l))
	}
	rows = max(rows, len(lines))
	width, height := float64(cols)*cellW+2*pad, float64(rows)*cellH+2*pad
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" rx="6" fill="%s"/>`+"\n", defaultBG)
	fmt.Fprintf(&b, `<g font-family="ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace" font-size="%d" xml:space="preserve">`+"\n", fontSize)
	for y, l := range lines {
		top := pad + float64(y)*cellH
		// Backgrounds, a rectangle per run of one colour.
		for x := 0; x < len(l); {
			_, bg := colours(l[x].s)
			end := x + 1
			for end < len(l) {
				if _, b2 := colours(l[end].s); b2 != bg {
					break
				}
				end++
			}
			if bg != defaultBG {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", pad+float64(x)*cellW, top, float64(end-x)*cellW, cellH, bg)
			}
			x = end
		}
		// Text, a text element per run of one style.
		for x := 0; x < len(l); {
			end := x + 1
			for end < len(l) && l[end].s == l[x].s {
				end++
			}
			var run strings.Builder
			for _, c := range l[x:end] {
				if c.r != 0 {
					run.WriteRune(c.r)
				}
			}
			if t := run.String(); strings.TrimSpace(t) != "" {
				fg, _ := colours(l[x].s)
				attrs := ""
				if l[x].s.bold {
					attrs += ` font-weight="bold"`
				}
				if l[x].s.italic {
					attrs += ` font-style="italic"`
				}
				if l[x].s.underline {
					attrs += ` text-decoration="underline"`
				}
				if l[x].s.dim {
					attrs += ` opacity="0.6"`
				}
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s"%s textLength="%.1f" lengthAdjust="spacingAndGlyphs">%s</text>`+"\n",
					pad+float64(x)*cellW, top+cellH-4, fg, attrs, float64(end-x)*cellW, html.EscapeString(t))
			}
			x = end
		}
	}
	b.WriteString("</g>\n</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// colours gives a style's foreground and background, reverse applied.
func colours(s style) (fg, bg string) {
	fg, bg = s.fg, s.bg
	if fg == "" {
		fg = defaultFG
	}
	if bg == "" {
		bg = defaultBG
	}
	if s.reverse {
		fg, bg = bg, fg
	}
	return fg, bg
}
