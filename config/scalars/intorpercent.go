// Package scalars holds small value types of the set model that parse and
// print themselves: config names them by alias.
package scalars

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// IntOrPercent is "N" or "N%".
type IntOrPercent string

// UnmarshalYAML accepts an integer (maxUnavailable: 2) or a string
// ("25%"); whether the value makes sense is Validate's business.
func (v *IntOrPercent) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		*v = ""
	case n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!str"):
		*v = IntOrPercent(n.Value)
	default:
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not an integer or a percentage", n.Line, n.Value)}}
	}
	return nil
}

// MarshalYAML writes an integer as an integer, as it was most likely written.
func (v IntOrPercent) MarshalYAML() (any, error) {
	if n, err := strconv.Atoi(string(v)); err == nil {
		return n, nil
	}
	return string(v), nil
}

// MarshalJSON writes an integer as a JSON number and a percentage as a string,
// as Kubernetes does.
func (v IntOrPercent) MarshalJSON() ([]byte, error) {
	if n, err := strconv.Atoi(string(v)); err == nil {
		return json.Marshal(n)
	}
	return json.Marshal(string(v))
}

// UnmarshalJSON reads a JSON number or string.
func (v *IntOrPercent) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		*v = IntOrPercent(strconv.Itoa(n))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s is not an integer or a percentage", b)
	}
	*v = IntOrPercent(s)
	return nil
}

// Resolve returns the value against total: "25%" of 10 is 2 (rounded down).
func (v IntOrPercent) Resolve(total int) (int, error) {
	s := string(v)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 100 || p != strconv.Itoa(n) {
			return 0, fmt.Errorf("%q must be a percentage from 1%% to 100%%", s)
		}
		return total * n / 100, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || s != strconv.Itoa(n) {
		return 0, fmt.Errorf("%q must be an integer >= 1 or a percentage from 1%% to 100%%", s)
	}
	return n, nil
}
