package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidateInitContainers(t *testing.T) {
	if err := withInit().Validate(); err != nil {
		t.Fatalf("valid init containers: %v", err)
	}
	tests := []struct {
		name  string
		inits []InitContainer
		want  []string
	}{
		{"names", []InitContainer{{Image: "x"}, {Name: "Clone", Image: "x"}, {Name: "a", Image: "x"}, {Name: "a", Image: "x"}, {Name: "12", Image: "x"}}, []string{
			"template.initContainers[0].name: is required",
			`template.initContainers[1].name: "Clone" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
			`template.initContainers[3].name: "a" is already used by template.initContainers[2]`,
			`template.initContainers[4].name: "12" must contain a letter or '-', not only digits`,
		}},
		{"image and policy", []InitContainer{{Name: "a", ImagePullPolicy: "always"}}, []string{
			"template.initContainers[0].image: is required",
			`template.initContainers[0].imagePullPolicy: "always" must be IfNotPresent, Always or Never`,
		}},
		{"templates and env", []InitContainer{{Name: "a", Image: "x",
			Command: []string{"{{.Ordinal"}, Args: []string{"{{.Host}}"},
			Env: map[string]string{"OSTSET_X": "1", "A=B": "2", "OK": "{{.Nope}}"}}}, []string{
			"template.initContainers[0].command[0]: invalid template: unclosed action",
			"template.initContainers[0].args[0]: unknown template field .Host (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)",
			"template.initContainers[0].env.OK: unknown template field .Nope (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)",
			`template.initContainers[0].env.A=B: invalid variable name "A=B": must be non-empty and must not contain '='`,
			"template.initContainers[0].env.OSTSET_X: the OSTSET_ prefix is reserved for the variables ostset sets",
		}},
		{"mounts, also against the per-ordinal volumes", []InitContainer{{Name: "a", Image: "x", VolumeMounts: []VolumeMount{
			{Target: "/a"}, {Source: "v", Target: "rel"}, {Source: "v", Target: "/data/"}, {Source: "w", Target: "/a"},
		}}}, []string{
			"template.initContainers[0].volumeMounts[0].source: is required",
			`template.initContainers[0].volumeMounts[1].target: "rel" must be an absolute path`,
			`template.initContainers[0].volumeMounts[2].target: "/data" is already mounted by volumeClaimTemplates[0].mountPath`,
			`template.initContainers[0].volumeMounts[3].target: "/a" is already mounted by template.initContainers[0].volumeMounts[0].target`,
		}},
		{"resources", []InitContainer{{Name: "a", Image: "x", Resources: Resources{CPUs: "0", Memory: "much"}}}, []string{
			`template.initContainers[0].resources.cpus: "0" must be greater than 0`,
			`template.initContainers[0].resources.memory: "much" is not a memory size (like 256Mi, 1Gi, 512m or a number of bytes)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSet()
			s.Template.InitContainers = tt.inits
			var got []string
			if err := s.Validate(); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The main container's mounts do not conflict with an init container's: they
// are separate containers.
func TestValidateInitMountsAreTheirOwn(t *testing.T) {
	s := validSet()
	s.Template.InitContainers = []InitContainer{{Name: "a", Image: "x", VolumeMounts: []VolumeMount{{Source: "other", Target: "/etc/app"}}}}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}

func TestParseInitContainers(t *testing.T) {
	src := `name: db
template:
  image: postgres:16
  initContainers:
    - name: clone
      image: postgres:16
      imagePullPolicy: Never
      command: [sh, -c, "clone {{.Ordinal}}"]
      env: {PRIMARY: "db-0.db"}
      user: "999"
      volumeMounts: [{source: conf, target: /conf}]
      resources: {memory: 64Mi}
    - name: chown
      image: busybox
      args: [chown, "999", /data]
volumeClaimTemplates:
  - {name: data, mountPath: /data}
`
	sets, err := Parse("set.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := sets[0].Template.InitContainers
	want := []InitContainer{{
		Name: "clone", Image: "postgres:16", ImagePullPolicy: PullNever,
		Command: []string{"sh", "-c", "clone {{.Ordinal}}"}, Env: map[string]string{"PRIMARY": "db-0.db"},
		User: "999", VolumeMounts: []VolumeMount{{Source: "conf", Target: "/conf"}}, Resources: Resources{Memory: "64Mi"},
	}, {Name: "chown", Image: "busybox", Args: []string{"chown", "999", "/data"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("init containers\n got %+v\nwant %+v", got, want)
	}
	if p := got[1].PullPolicy(); p != PullIfNotPresent {
		t.Errorf("default pull policy %q", p)
	}
	if names := sets[0].Template.InitNames(); !reflect.DeepEqual(names, []string{"clone", "chown"}) {
		t.Errorf("InitNames = %v", names)
	}
}

func TestParseInitContainerErrors(t *testing.T) {
	src := "name: db\ntemplate:\n  image: x\n  initContainers:\n    - name: clone\n      image: x\n      healthcheck: {test: [NONE]}\n    - name: clone\n      ports: []\n    - image: [y]\n"
	_, err := Parse("set.yaml", []byte(src), nil)
	want := []string{
		`set.yaml:7: template.initContainers[0]: unknown field "healthcheck"`,
		`set.yaml:8: template.initContainers[1].name: "clone" is already used by template.initContainers[0]`,
		`set.yaml:8: template.initContainers[1].image: is required`,
		`set.yaml:9: template.initContainers[1]: unknown field "ports"`,
		`set.yaml:10: template.initContainers[2].image: expected a single value, got a list`,
		`set.yaml:10: template.initContainers[2].name: is required`,
	}
	if err == nil || !reflect.DeepEqual(strings.Split(err.Error(), "\n"), want) {
		t.Errorf("got:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestExpandInit(t *testing.T) {
	in := InitContainer{Name: "clone", Image: "x:{{.Ordinal}}",
		Command: []string{"sh", "-c", "echo {{.Name}}"}, Args: []string{"{{.Set}}-0.{{.Service}}"},
		Env: map[string]string{"ORD": "{{.Ordinal}}"}}
	got, err := ExpandInit(in, "template.initContainers[0]", ReplicaVars{Set: "db", Ordinal: 2, Name: "db-2", Service: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	want := InitContainer{Name: "clone", Image: "x:{{.Ordinal}}",
		Command: []string{"sh", "-c", "echo db-2"}, Args: []string{"db-0.svc"}, Env: map[string]string{"ORD": "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ExpandInit =\n%+v\nwant\n%+v", got, want)
	}
	if in.Env["ORD"] != "{{.Ordinal}}" || in.Command[2] != "echo {{.Name}}" {
		t.Errorf("ExpandInit modified its input: %+v", in)
	}
	_, err = ExpandInit(InitContainer{Args: []string{"{{.X}}"}}, "template.initContainers[1]", ReplicaVars{})
	if want := "template.initContainers[1].args[0]: unknown template field .X (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestRevisionSpecCopiesInitContainers(t *testing.T) {
	s := withInit()
	r := s.RevisionSpec(testImageID)
	r.Template.InitContainers[0].Env["A"] = "changed"
	r.Template.InitContainers[0].Command[0] = "changed"
	r.Template.InitContainers[0].VolumeMounts[0].Target = "/changed"
	if !reflect.DeepEqual(s, withInit()) {
		t.Errorf("changing the RevisionSpec changed the Set: %+v", s.Template.InitContainers)
	}
}
