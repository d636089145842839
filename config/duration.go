package config

import (
	"encoding/json"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// String returns the Go duration syntax, "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML accepts Go duration strings ("2s", "500ms", "1m30s"). A bare
// number is refused rather than guessed: "2" could mean seconds or nanoseconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		*d = 0
		return nil
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!int" || n.ShortTag() == "!!float" {
		return durationError(n)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return durationError(n)
	}
	*d = Duration(v)
	return nil
}

// durationError is a yaml.TypeError so that a yaml Decoder collects it with
// the other field errors instead of stopping.
func durationError(n *yaml.Node) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a duration (like 2s, 500ms, 1m30s)", n.Line, n.Value)}}
}

// MarshalYAML writes "2s" so that the output parses again.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes "2s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "2s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration must be a string like \"2s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (like 2s, 500ms, 1m30s)", s)
	}
	*d = Duration(v)
	return nil
}
