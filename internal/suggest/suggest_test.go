package suggest

import "testing"

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"replcas", []string{"replicas", "serviceName"}, "replicas"},
		{"REPLICAS", []string{"replicas"}, "replicas"},
		{"wev", []string{"db", "web"}, "web"},
		{"ab", []string{"cd"}, ""},
		{"frobnicate", []string{"replicas"}, ""},
		{"cat", []string{"car", "bat"}, "bat"}, // a tie goes to the first in sorted order
	} {
		if got := Closest(c.name, c.candidates); got != c.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", c.name, c.candidates, got, c.want)
		}
	}
}
