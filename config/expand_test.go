package config

import (
	"reflect"
	"testing"
)

func TestExpand(t *testing.T) {
	in := Template{
		Image:   "redis:{{.Ordinal}}", // not expanded: only command, args and env
		Command: []string{"sh", "-c", "echo {{.Name}}"},
		Args:    []string{"--announce", "{{.Name}}.{{.Service}}", `{{if eq .Ordinal 0}}primary{{else}}{{.Set}}-0{{end}}`, "$HOME {x}"},
		Env:     map[string]string{"ID": "{{.Ordinal}}", "PLAIN": "x", "SET": "{{.Set}}"},
		Labels:  map[string]string{"l": "{{.Ordinal}}"},
	}
	orig := in.clone()
	v := ReplicaVars{Set: "db", Ordinal: 2, Name: "db-2", Service: "db-svc"}
	got, err := Expand(in, v)
	if err != nil {
		t.Fatal(err)
	}
	want := Template{
		Image:   "redis:{{.Ordinal}}",
		Command: []string{"sh", "-c", "echo db-2"},
		Args:    []string{"--announce", "db-2.db-svc", "db-0", "$HOME {x}"},
		Env:     map[string]string{"ID": "2", "PLAIN": "x", "SET": "db"},
		Labels:  map[string]string{"l": "{{.Ordinal}}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("Expand modified its input: %+v", in)
	}
	primary, _ := Expand(in, ReplicaVars{Set: "db", Ordinal: 0, Name: "db-0", Service: "db"})
	if primary.Args[2] != "primary" {
		t.Errorf("ordinal 0: args[2] = %q", primary.Args[2])
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		tmpl Template
		want string
	}{
		{Template{Args: []string{"ok", "{{.Host}}"}}, "template.args[1]: unknown template field .Host (use .Set, .Ordinal, .Name or .Service)"},
		{Template{Command: []string{"{{"}}, "template.command[0]: invalid template: unclosed action"},
		{Template{Env: map[string]string{"B": "{{.X}}", "A": "{{.Y}}"}}, "template.env.A: unknown template field .Y (use .Set, .Ordinal, .Name or .Service)\n" +
			"template.env.B: unknown template field .X (use .Set, .Ordinal, .Name or .Service)"},
	}
	for _, tt := range tests {
		_, err := Expand(tt.tmpl, ReplicaVars{Set: "s", Name: "s-0", Service: "s"})
		if err == nil || err.Error() != tt.want {
			t.Errorf("Expand(%+v) error = %v, want %s", tt.tmpl, err, tt.want)
		}
	}
}
