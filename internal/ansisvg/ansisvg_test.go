package ansisvg

import (
	"strings"
	"testing"
)

func TestParseAppliesColours(t *testing.T) {
	lines := Parse("a\x1b[1;31mb\x1b[0mc\n\x1b[38;5;208;48;2;1;2;3md\x1b[7me")
	if len(lines) != 2 || len(lines[0]) != 3 || len(lines[1]) != 2 {
		t.Fatalf("cells: %+v", lines)
	}
	if s := lines[0][1].s; !s.bold || s.fg != ansi16[1] {
		t.Errorf("b: %+v", s)
	}
	if s := lines[0][2].s; s != (style{}) {
		t.Errorf("c after reset: %+v", s)
	}
	if s := lines[1][0].s; s.fg != "#ff8700" || s.bg != "#010203" {
		t.Errorf("d: %+v", s)
	}
	if fg, bg := colours(lines[1][1].s); fg != "#010203" || bg != "#ff8700" {
		t.Errorf("e reversed: %s on %s", fg, bg)
	}
}

func TestRenderEscapesAndColours(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, "NAME <x>\n\x1b[32mReady\x1b[0m", 20, 3); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{"<svg ", "NAME &lt;x&gt;", `fill="` + ansi16[2] + `"`, ">Ready</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q:\n%s", want, svg)
		}
	}
}
