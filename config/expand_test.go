package config

import (
	"reflect"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	in := Template{
		Image:           "redis:{{.Ordinal}}", // fixed: one image ID per revision
		ImagePullPolicy: "{{.Set}}",
		Command:         []string{"sh", "-c", "echo {{.Name}}"},
		Args:            []string{"--announce", "{{.Name}}.{{.Service}}", `{{if eq .Ordinal 0}}primary{{else}}{{.Set}}-0{{end}}`, "$HOME {x}"},
		Env:             map[string]string{"ID": "{{.Ordinal}}", "PLAIN": "x", "SET": "{{.Set}}", "{{.Name}}": "key"},
		WorkingDir:      "/srv/{{.Name}}",
		User:            "{{.Ordinal}}",
		Labels:          map[string]string{"ordinal": "{{.Ordinal}}", "{{.Set}}": "key"},
		Ports:           []Port{{ContainerPort: 80, HostIP: "{{.Ordinal}}"}},
		Healthcheck: &Healthcheck{Test: []string{"CMD-SHELL", "check --member {{.Name}} --of {{.Replicas}}"},
			Interval: Duration(time.Second)},
		VolumeMounts: []VolumeMount{{Source: "/backups/{{.Name}}", Target: "/backup/{{.Ordinal}}"}, {Source: "shared", Target: "/shared"}},
		Resources:    Resources{CPUs: "{{.Ordinal}}"},
	}
	orig := in.clone()
	s := Set{Name: "db", Replicas: ptr(3), ServiceName: "db-svc"}
	got, err := Expand(in, s.ReplicaVars("db-svc", 2))
	if err != nil {
		t.Fatal(err)
	}
	want := Template{
		Image:           "redis:{{.Ordinal}}",
		ImagePullPolicy: "{{.Set}}",
		Command:         []string{"sh", "-c", "echo db-2"},
		Args:            []string{"--announce", "db-2.db-svc", "db-0", "$HOME {x}"},
		Env:             map[string]string{"ID": "2", "PLAIN": "x", "SET": "db", "{{.Name}}": "key"},
		WorkingDir:      "/srv/db-2",
		User:            "2",
		Labels:          map[string]string{"ordinal": "2", "{{.Set}}": "key"},
		Ports:           []Port{{ContainerPort: 80, HostIP: "{{.Ordinal}}"}},
		Healthcheck:     &Healthcheck{Test: []string{"CMD-SHELL", "check --member db-2 --of 3"}, Interval: Duration(time.Second)},
		VolumeMounts:    []VolumeMount{{Source: "/backups/db-2", Target: "/backup/2"}, {Source: "shared", Target: "/shared"}},
		Resources:       Resources{CPUs: "{{.Ordinal}}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("Expand modified its input: %+v", in)
	}
	primary, _ := Expand(in, s.ReplicaVars("db", 0))
	if primary.Args[2] != "primary" {
		t.Errorf("ordinal 0: args[2] = %q", primary.Args[2])
	}
}

// The expanded template shares no list, map or healthcheck with its input, so
// that changing one replica's spec cannot change another's.
func TestExpandSharesNothingItChanged(t *testing.T) {
	in := Template{Command: []string{"{{.Name}}"}, Env: map[string]string{"A": "{{.Name}}"},
		Healthcheck: &Healthcheck{Test: []string{"CMD", "{{.Name}}"}}, VolumeMounts: []VolumeMount{{Source: "{{.Name}}", Target: "/x"}}}
	got, err := Expand(in, Set{Name: "s"}.ReplicaVars("s", 0))
	if err != nil {
		t.Fatal(err)
	}
	got.Command[0], got.Env["A"], got.Healthcheck.Test[1], got.VolumeMounts[0].Source = "x", "x", "x", "x"
	if in.Command[0] != "{{.Name}}" || in.Env["A"] != "{{.Name}}" || in.Healthcheck.Test[1] != "{{.Name}}" || in.VolumeMounts[0].Source != "{{.Name}}" {
		t.Errorf("the input changed with the output: %+v", in)
	}
}

// What etcd's --initial-cluster needs: every member's name and peer URL.
func TestExpandPeers(t *testing.T) {
	s := Set{Name: "etcd", Replicas: ptr(3), Ordinals: Ordinals{Start: 1}}
	in := Template{Args: []string{
		`--initial-cluster={{range $i, $p := .Peers}}{{if $i}},{{end}}{{$p.Name}}=http://{{$p.Host}}:2380{{end}}`,
		`{{.Replicas}} {{.Ordinals}} {{len .Peers}}`,
		`{{range .Ordinals}}{{if ne . $.Ordinal}}peer-{{.}} {{end}}{{end}}`,
	}}
	got, err := Expand(in, s.ReplicaVars("etcd", 2))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"--initial-cluster=etcd-1=http://etcd-1.etcd:2380,etcd-2=http://etcd-2.etcd:2380,etcd-3=http://etcd-3.etcd:2380",
		"3 [1 2 3] 3",
		"peer-1 peer-3 ",
	}
	if !reflect.DeepEqual(got.Args, want) {
		t.Errorf("args =\n%q\nwant\n%q", got.Args, want)
	}
}

// ExpandFields works on any struct, by the same rules: what a list of other
// containers in the template would need.
func TestExpandFieldsOnOtherStructs(t *testing.T) {
	type sidecar struct {
		Name    string            `yaml:"name"`
		Image   string            `yaml:"image"`
		Command []string          `yaml:"command"`
		Env     map[string]string `yaml:"env"`
	}
	type holder struct {
		Sidecars []sidecar `yaml:"sidecars"`
	}
	h := holder{Sidecars: []sidecar{{Name: "init-{{.Ordinal}}", Image: "x:{{.Ordinal}}", Command: []string{"clone", "--from", "{{.Set}}-0"}, Env: map[string]string{"ME": "{{.Name}}"}}}}
	orig := h.Sidecars[0]
	if err := ExpandFields(&h, "template", Set{Name: "pg"}.ReplicaVars("pg", 1)); err != nil {
		t.Fatal(err)
	}
	want := sidecar{Name: "init-{{.Ordinal}}", Image: "x:{{.Ordinal}}", Command: []string{"clone", "--from", "pg-0"}, Env: map[string]string{"ME": "pg-1"}}
	if !reflect.DeepEqual(h.Sidecars[0], want) {
		t.Errorf("got %+v, want %+v", h.Sidecars[0], want)
	}
	if orig.Command[2] != "{{.Set}}-0" || orig.Env["ME"] != "{{.Name}}" {
		t.Errorf("the original list was written to: %+v", orig)
	}
	err := ExpandFields(&holder{Sidecars: []sidecar{{Command: []string{"{{.Nope}}"}}}}, "template", ReplicaVars{})
	if err == nil || err.Error() != "template.sidecars[0].command[0]: unknown template field .Nope (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)" {
		t.Errorf("error = %v", err)
	}
}

func TestExpandErrors(t *testing.T) {
	const use = " (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)"
	tests := []struct {
		tmpl Template
		want string
	}{
		{Template{Args: []string{"ok", "{{.Host}}"}}, "template.args[1]: unknown template field .Host" + use},
		{Template{Command: []string{"{{"}}, "template.command[0]: invalid template: unclosed action"},
		{Template{Env: map[string]string{"B": "{{.X}}", "A": "{{.Y}}"}}, "template.env.A: unknown template field .Y" + use + "\n" +
			"template.env.B: unknown template field .X" + use},
		{Template{Healthcheck: &Healthcheck{Test: []string{"CMD", "{{.Ordinal"}}}, "template.healthcheck.test[1]: invalid template: unclosed action"},
		{Template{VolumeMounts: []VolumeMount{{Source: "x", Target: "/{{.Nope}}"}}}, "template.volumeMounts[0].target: unknown template field .Nope" + use},
		{Template{Labels: map[string]string{"a": "{{range .Peers}}{{.Hostname}}{{end}}"}}, "template.labels.a: unknown template field .Hostname of a peer (use .Name, .Ordinal or .Host)"},
		{Template{WorkingDir: "{{index .Peers 3}}"}, "template.workingDir: invalid template: error calling index: index out of range: 3"},
	}
	for _, tt := range tests {
		_, err := Expand(tt.tmpl, Set{Name: "s", Replicas: ptr(2)}.ReplicaVars("s", 0))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Expand(%+v) error = %v, want %s", tt.tmpl, err, tt.want)
		}
	}
}

// Only a template that reads the replica's own values (.Ordinal, .Name, the
// whole dot) outside {{range}} is checked for every replica.
func TestPerReplica(t *testing.T) {
	for s, want := range map[string]bool{
		"{{.Ordinal}}": true, "{{.Name}}": true, "{{.}}": true, "{{printf \"%v\" .}}": true, "{{$.Name}}": true,
		"{{range .Peers}}{{$.Ordinal}}{{end}}": true, "{{if eq .Ordinal 1}}x{{end}}": true, "{{with .Peers}}{{.}}{{end}}": true,
		"{{(.Name)}}": true, "{{$x := .}}{{$x.Set}}": true, "{{.Ordinal": true,
		"{{.Set}}": false, "{{.Replicas}}-{{.Service}}": false, "{{range $i, $p := .Peers}}{{$p.Name}}{{$p.Ordinal}}{{.Host}}{{.}}{{end}}": false,
		"{{index .Peers 2}}": false, "{{len .Ordinals}}": false,
	} {
		if got := perReplica(s); got != want {
			t.Errorf("perReplica(%q) = %v, want %v", s, got, want)
		}
	}
}
