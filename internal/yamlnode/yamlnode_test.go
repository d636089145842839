package yamlnode

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestLineOf(t *testing.T) {
	lines := map[string]int{"template": 3, "template.ports": 5, "template.ports[0]": 6}
	for path, want := range map[string]int{
		"template.ports[0]":          6,
		"template.ports[0].hostPort": 6, // a missing field: its closest ancestor
		"template.ports[1]":          5,
		"template.image":             3,
	} {
		if got, ok := LineOf(lines, path); !ok || got != want {
			t.Errorf("LineOf(%q) = %d, %v; want %d", path, got, ok, want)
		}
	}
	if _, ok := LineOf(lines, "replicas"); ok {
		t.Error("LineOf found a line for a path without one")
	}
}

func TestErrors(t *testing.T) {
	errs := Errors("set.yaml", []Problem{{Line: 9, Path: "replicas", Message: "must be at least 0"}, {Line: 2, Message: "expected a mapping"}})
	want := []string{"set.yaml:2: expected a mapping", "set.yaml:9: replicas: must be at least 0"}
	if fmt.Sprint(errs) != fmt.Sprint(want) {
		t.Errorf("Errors = %v, want %v", errs, want)
	}
	if Errors("set.yaml", nil) != nil {
		t.Error("no problems are no errors")
	}
}

func TestKindName(t *testing.T) {
	for k, want := range map[string]string{
		"a: 1": "a mapping", "[1]": "a list", "x": `"x"`, `""`: "a single value",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(k), &doc); err != nil {
			t.Fatal(err)
		}
		n := doc.Content[0]
		if got := KindName(n.Kind, n.Value); got != want {
			t.Errorf("KindName(%s) = %s, want %s", k, got, want)
		}
	}
}
