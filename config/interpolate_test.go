package config

import (
	"slices"
	"strings"
	"testing"
)

func TestInterpolate(t *testing.T) {
	// OSTSET_ORDINAL is set here as ostset's own environment might have it:
	// the container's value must still win.
	env := map[string]string{"SET": "value", "EMPTY": "", "B": "b", "OSTSET_ORDINAL": "7"}
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
		{in: "$OSTSET_ORDINAL", want: "$OSTSET_ORDINAL"},
		{in: `if [ "$OSTSET_ORDINAL" = 0 ]; then primary; fi`, want: `if [ "$OSTSET_ORDINAL" = 0 ]; then primary; fi`},
		{in: "${OSTSET_ORDINAL}-x", want: "${OSTSET_ORDINAL}-x"},
		{in: "${OSTSET_NAME:-${SET}}", want: "${OSTSET_NAME:-${SET}}"},
		{in: "${OSTSET_UNSET:?the container's business}", want: "${OSTSET_UNSET:?the container's business}"},
		{in: "${UNSET:-$OSTSET_NAME}", want: "$OSTSET_NAME"},
		{in: "$$OSTSET_NAME", want: "$OSTSET_NAME"},
		{in: "$OSTSET", want: ""},
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

// Every variable used without a default and not set is reported, once per
// use; defaults, alternatives, required forms and the runtime names are not.
func TestInterpolateReportsUnset(t *testing.T) {
	env := map[string]string{"SET": "value", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in   string
		want []string
	}{
		{in: "$UNSET", want: []string{"UNSET"}},
		{in: "${UNSET}/$OTHER", want: []string{"UNSET", "OTHER"}},
		{in: "$EMPTY ${SET}", want: nil},
		{in: "${UNSET:-d} ${UNSET-d} ${UNSET:+a} ${UNSET+a}", want: nil},
		{in: "${UNSET:-$INNER}", want: []string{"INNER"}},
		{in: "${SET:-$INNER}", want: nil},
		{in: "$OSTSET_ORDINAL ${OSTSET_NAME}", want: nil},
		{in: "$$HOME {{ $x := .Ordinal }}", want: nil},
	}
	for _, tt := range tests {
		var got []string
		in := interpolator(lookup)
		in.Unset = func(name string) { got = append(got, name) }
		if _, err := in.Expand(tt.in); err != nil {
			t.Errorf("expand(%q): %v", tt.in, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("expand(%q) reported unset %q, want %q", tt.in, got, tt.want)
		}
	}
}
