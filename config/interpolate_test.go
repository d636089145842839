package config

import (
	"strings"
	"testing"
)

func TestInterpolate(t *testing.T) {
	env := map[string]string{"SET": "value", "EMPTY": "", "B": "b"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in, want, err string
	}{
		{in: "plain", want: "plain"},
		{in: "${SET}", want: "value"},
		{in: "$SET", want: "value"},
		{in: "$SET.x", want: "value.x"},
		{in: "a${SET}b", want: "avalueb"},
		{in: "${UNSET}", want: ""},
		{in: "$UNSET", want: ""},
		{in: "${UNSET:-def}", want: "def"},
		{in: "${EMPTY:-def}", want: "def"},
		{in: "${SET:-def}", want: "value"},
		{in: "${UNSET-def}", want: "def"},
		{in: "${EMPTY-def}", want: ""},
		{in: "${UNSET:-}", want: ""},
		{in: "${UNSET:-a:b-c}", want: "a:b-c"},
		{in: "${UNSET:-${B}x}", want: "bx"},
		{in: "${UNSET:-${ALSO:-deep}}", want: "deep"},
		{in: "${SET:+alt}", want: "alt"},
		{in: "${EMPTY:+alt}", want: ""},
		{in: "${EMPTY+alt}", want: "alt"},
		{in: "${UNSET+alt}", want: ""},
		{in: "${SET:?must be set}", want: "value"},
		{in: "${EMPTY?must be set}", want: ""},
		{in: "${UNSET:?must be set}", err: "required variable UNSET is missing a value: must be set"},
		{in: "${EMPTY:?}", err: "required variable EMPTY is missing a value"},
		{in: "${UNSET?}", err: "required variable UNSET is missing a value"},
		{in: "$$", want: "$"},
		{in: "$$SET", want: "$SET"},
		{in: "$${SET}", want: "${SET}"},
		{in: "cost $5", want: "cost $5"},
		{in: "trailing $", want: "trailing $"},
		{in: "{{.Ordinal}}", want: "{{.Ordinal}}"},
		{in: "{{ $x := .Ordinal }}{{ $x }}-$SET", want: "{{ $x := .Ordinal }}{{ $x }}-value"},
		{in: "${SET", err: "missing '}'"},
		{in: "${}", err: "invalid interpolation format"},
		{in: "${1X}", err: "invalid interpolation format"},
		{in: "${SET*x}", err: "invalid interpolation format"},
	}
	for _, tt := range tests {
		got, err := interpolate(tt.in, lookup)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("interpolate(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("interpolate(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
