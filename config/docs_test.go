package config

import (
	"os"
	"strings"
	"testing"
)

// The example of docs/set-file.md parses, and gives what the text after it says.
func TestDocsExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../docs/set-file.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(doc), "## Example\n\n```yaml\n")
	if !ok {
		t.Fatal("no example in docs/set-file.md")
	}
	example, _, _ = strings.Cut(example, "```")
	var warnings []string
	sets, err := Loader{LookupEnv: envOf(map[string]string{"CACHE_MAXMEMORY": "200mb"}), Warn: func(m string) { warnings = append(warnings, m) }}.
		Parse("set.yaml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	s := sets[0]
	if s.VolumeClaimTemplates[0].Owner != "999:999" || s.Template.Ulimits["nofile"] != (Ulimit{Soft: 16384, Hard: 16384}) {
		t.Errorf("example read as %+v", s)
	}
	tmpl, err := Expand(s.Template, s.ReplicaVars(s.ServiceName, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(append(tmpl.Command, tmpl.Args...), " "); got != "redis-server --replica-announce-ip cache-0.cache --appendonly yes" {
		t.Errorf("command line %q", got)
	}
}
