package config

import (
	"github.com/ostset/ostset/config/envref"

	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// validSet is a valid set using most fields, before defaults.
func validSet() Set {
	return Set{
		Name:     "web",
		Replicas: ptr(3),
		Template: Template{
			Image:   "redis:7",
			Command: []string{"redis-server", "--replica-announce-ip", "{{.Name}}.{{.Service}}"},
			Args:    []string{"--port", "6379"},
			Env:     map[string]string{"ORDINAL": "{{.Ordinal}}", "SET": "{{.Set}}"},
			Labels:  map[string]string{"team": "a"},
			Ports: []Port{
				{ContainerPort: 6379, HostPort: 16379},
				{ContainerPort: 6379, HostPort: 16379, Protocol: "udp"},
				{ContainerPort: 8080, HostPort: 18080, HostIP: "127.0.0.1"},
			},
			Healthcheck:  &Healthcheck{Test: []string{"CMD", "redis-cli", "ping"}, Interval: Duration(2 * time.Second), Retries: 3},
			VolumeMounts: []VolumeMount{{Source: "./conf", Target: "/etc/app", ReadOnly: true}},
			Resources:    Resources{CPUs: "0.5", Memory: "256Mi"},
		},
		VolumeClaimTemplates: []VolumeClaimTemplate{{Name: "data", MountPath: "/data"}, {Name: "logs", MountPath: "/logs/"}},
	}
}

func TestValidateAcceptsValidSets(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Set)
	}{
		{"base", func(*Set) {}},
		{"zero replicas", func(s *Set) { s.Replicas = ptr(0) }},
		{"name of 61 characters with ordinal 9", func(s *Set) { s.Name = strings.Repeat("a", 61); s.Replicas = ptr(10); s.Ordinals.Start = 0 }},
		{"percent", func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "100%" }},
		{"OnDelete, Parallel, Delete", func(s *Set) {
			s.UpdateStrategy.Type = OnDelete
			s.PodManagementPolicy = Parallel
			s.PersistentVolumeClaimRetentionPolicy = RetentionPolicy{WhenDeleted: Delete, WhenScaled: Delete}
		}},
		{"templates with the peers of 0 replicas", func(s *Set) {
			s.Replicas = ptr(0)
			s.Template.Args = []string{"{{(index .Peers 0).Host}}", "{{.Replicas}}"}
		}},
		{"healthcheck NONE", func(s *Set) { s.Template.Healthcheck = &Healthcheck{Test: []string{"NONE"}} }},
		{"healthcheck CMD-SHELL", func(s *Set) { s.Template.Healthcheck = &Healthcheck{Test: []string{"CMD-SHELL", "true"}} }},
		{"restart policies", func(s *Set) { s.Template.RestartPolicy = "on-failure:5" }},
		{"restart no", func(s *Set) { s.Template.RestartPolicy = "no" }},
		{"pull Always", func(s *Set) { s.Template.ImagePullPolicy = PullAlways }},
		{"pull Never", func(s *Set) { s.Template.ImagePullPolicy = PullNever }},
		{"pull IfNotPresent", func(s *Set) { s.Template.ImagePullPolicy = PullIfNotPresent }},
		{"highest host port", func(s *Set) {
			s.Template.Ports = []Port{{ContainerPort: 1, HostPort: 65533}}
			s.Ordinals.Start = 0
		}},
		{"same host ports on other IPs", func(s *Set) {
			s.Template.Ports = []Port{{ContainerPort: 1, HostPort: 80, HostIP: "127.0.0.1"}, {ContainerPort: 2, HostPort: 80, HostIP: "127.0.0.2"}}
		}},
		{"template actions", func(s *Set) {
			s.Template.Args = []string{`{{if eq .Ordinal 0}}primary{{else}}replica-of {{.Set}}-0{{end}}`}
		}},
	}
	for _, tt := range tests {
		s := validSet()
		tt.edit(&s)
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	long := strings.Repeat("a", 62)
	tests := []struct {
		name string
		edit func(*Set)
		want []string
	}{
		{"no name", func(s *Set) { s.Name = "" }, []string{
			"name: is required",
		}},
		{"reserved env", func(s *Set) { s.Template.Env = map[string]string{"OSTSET_NAME": "x"} }, []string{
			"template.env.OSTSET_NAME: the OSTSET_ prefix is reserved for the variables ostset sets",
		}},
		{"env ref", func(s *Set) {
			s.Template.Env = map[string]string{"PW": "x"}
			s.Template.EnvRefs = map[string]envref.Ref{
				"PW":  {Kind: envref.Secret, Name: "db", Key: "pw", Digest: "d"},
				"K":   {Kind: envref.Secret, Name: "db", Key: "..", Digest: "d"},
				"N":   {Kind: "Pod", Name: "db", Key: "pw", Digest: "d"},
				"OBJ": {Kind: envref.ConfigMap, Name: "../x", Key: "pw", Digest: "d"},
			}
		}, []string{
			`template.envRefs.K: key "..": must be letters, digits, '-', '_' and '.', and not . or ..`,
			`template.envRefs.N: kind "Pod": must be Secret or ConfigMap`,
			`template.envRefs.OBJ: name "../x": must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
			"template.envRefs.PW: the variable is in env too: it has one value",
		}},
		{"bad host IP", func(s *Set) {
			s.Template.Ports = []Port{{ContainerPort: 80, HostIP: "not-an-ip", Protocol: "tcp"}}
		}, []string{
			`template.ports[0].hostIP: "not-an-ip" is not an IP address`,
		}},
		{"progress deadline within minReadySeconds", func(s *Set) {
			s.MinReadySeconds = 30
			s.UpdateStrategy.ProgressDeadlineSeconds = ptr(30)
		}, []string{
			"updateStrategy.progressDeadlineSeconds: must be greater than minReadySeconds (30), got 30",
		}},
		{"bad names", func(s *Set) { s.Name = "-web"; s.ServiceName = "Web" }, []string{
			`name: "-web" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
			`serviceName: "Web" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
		}},
		{"name too long for its ordinals", func(s *Set) { s.Name = long; s.ServiceName = "web"; s.Replicas = ptr(10) }, []string{
			`name: "` + long + `" is too long: replica name "` + long + `-9" must be at most 63 characters`,
		}},
		{"name too long", func(s *Set) { s.Name = long + "ab"; s.ServiceName = "web" }, []string{
			`name: "` + long + `ab" must be at most 63 characters`,
		}},
		{"network", func(s *Set) { s.Network = "my net" }, []string{
			`network: "my net" is not a valid Docker network name (letters, digits, '_', '.', '-')`,
		}},
		{"predefined network", func(s *Set) { s.Network = "bridge" }, []string{
			`network: "bridge" is a predefined Docker network; use a user-defined network such as "ostset"`,
		}},
		{"negative numbers", func(s *Set) {
			s.Replicas = ptr(-1)
			s.UpdateStrategy.RollingUpdate.Partition = -1
			s.MinReadySeconds = -1
			s.RevisionHistoryLimit = ptr(-1)
			s.Ordinals.Start = -1
			s.TerminationGracePeriodSeconds = ptr(-1)
		}, []string{
			"replicas: must be >= 0, got -1",
			"updateStrategy.rollingUpdate.partition: must be >= 0, got -1",
			"minReadySeconds: must be >= 0, got -1",
			"revisionHistoryLimit: must be >= 0, got -1",
			"ordinals.start: must be >= 0, got -1",
			"terminationGracePeriodSeconds: must be >= 0, got -1",
		}},
		{"enums", func(s *Set) {
			s.PodManagementPolicy = "Ordered"
			s.UpdateStrategy.Type = "Recreated"
			s.PersistentVolumeClaimRetentionPolicy = RetentionPolicy{WhenDeleted: "delete", WhenScaled: "Keep"}
		}, []string{
			`podManagementPolicy: "Ordered" must be OrderedReady or Parallel`,
			`updateStrategy.type: "Recreated" must be RollingUpdate, OnDelete or Recreate`,
			`persistentVolumeClaimRetentionPolicy.whenDeleted: "delete" must be Retain or Delete`,
			`persistentVolumeClaimRetentionPolicy.whenScaled: "Keep" must be Retain or Delete`,
		}},
		{"maxUnavailable 0", func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "0" }, []string{
			`updateStrategy.rollingUpdate.maxUnavailable: "0" must be an integer >= 1 or a percentage from 1% to 100%`,
		}},
		{"maxUnavailable 0%", func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "0%" }, []string{
			`updateStrategy.rollingUpdate.maxUnavailable: "0%" must be a percentage from 1% to 100%`,
		}},
		{"maxUnavailable 101%", func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "101%" }, []string{
			`updateStrategy.rollingUpdate.maxUnavailable: "101%" must be a percentage from 1% to 100%`,
		}},
		{"maxUnavailable words", func(s *Set) { s.UpdateStrategy.RollingUpdate.MaxUnavailable = "one" }, []string{
			`updateStrategy.rollingUpdate.maxUnavailable: "one" must be an integer >= 1 or a percentage from 1% to 100%`,
		}},
		{"template basics", func(s *Set) {
			s.Template.Image = ""
			s.Template.Env = map[string]string{"": "x", "A=B": "y", "OK": "{{.Host}}"}
			s.Template.Labels = map[string]string{"io.ostset.set": "x", "": "y"}
			s.Template.RestartPolicy = "on-failure:x"
		}, []string{
			"template.image: is required",
			`template.env.: invalid variable name "": must be non-empty and must not contain '='`,
			`template.env.A=B: invalid variable name "A=B": must be non-empty and must not contain '='`,
			"template.labels.: label keys must not be empty",
			"template.labels.io.ostset.set: the io.ostset. prefix is reserved for ostset's own labels",
			`template.restartPolicy: "on-failure:x" must be one of no, always, unless-stopped, on-failure, on-failure:N`,
			"template.env.OK: unknown template field .Host (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)",
		}},
		{"go templates", func(s *Set) {
			s.Template.Command = []string{"{{.Ordinal", "ok"}
			s.Template.Args = []string{"x", "{{.ordinal}}", "{{ env \"HOME\" }}"}
		}, []string{
			"template.command[0]: invalid template: unclosed action",
			"template.args[1]: unknown template field .ordinal (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)",
			`template.args[2]: invalid template: function "env" not defined`,
		}},
		{"templates in every string field", func(s *Set) {
			s.Template.Healthcheck.Test = []string{"CMD", "check", "{{.Ordnal}}"}
			s.Template.WorkingDir = "/{{.Name"
			s.Template.VolumeMounts[0].Target = "/etc/{{index .Peers 3}}" // 3 replicas: 0 to 2
			s.Template.Image = "x:{{.Ordinal}}"                           // used as written: not a reference
		}, []string{
			`template.image: "x:{{.Ordinal}}" is not a valid image reference: invalid reference format`,
			"template.workingDir: invalid template: unclosed action",
			"template.healthcheck.test[2]: unknown template field .Ordnal (use .Set, .Ordinal, .Name, .Service, .Replicas, .Ordinals or .Peers)",
			"template.volumeMounts[0].target: invalid template: error calling index: index out of range",
		}},
		{"ports", func(s *Set) {
			s.Template.Ports = []Port{
				{ContainerPort: 0},
				{ContainerPort: 65536, HostPort: -1},
				{ContainerPort: 80, Protocol: "http"},
				{ContainerPort: 81, HostPort: 65534},
				{ContainerPort: 82, HostPort: 8000},
				{ContainerPort: 83, HostPort: 8002, HostIP: "127.0.0.1"},
				{ContainerPort: 82, HostPort: 9000},
			}
		}, []string{
			"template.ports[0].containerPort: must be from 1 to 65535, got 0",
			"template.ports[1].containerPort: must be from 1 to 65535, got 65536",
			"template.ports[1].hostPort: must be from 0 to 65535, got -1",
			`template.ports[2].protocol: "http" must be tcp, udp or sctp`,
			"template.ports[3].hostPort: replica 2 would publish on port 65536, above 65535",
			"template.ports[5].hostPort: host ports 8002-8004 overlap 8000-8002 of template.ports[4]",
			"template.ports[6].containerPort: 82/tcp is already listed at template.ports[4]",
		}},
		{"host ports use the ordinal", func(s *Set) {
			s.Ordinals.Start = 10
			s.Template.Ports = []Port{{ContainerPort: 1, HostPort: 65525}}
		}, []string{
			"template.ports[0].hostPort: replica 12 would publish on port 65537, above 65535",
		}},
		{"healthcheck", func(s *Set) {
			s.Template.Healthcheck = &Healthcheck{
				Test:        []string{"curl", "x"},
				Interval:    Duration(-time.Second),
				Timeout:     Duration(time.Microsecond),
				StartPeriod: Duration(-1),
				Retries:     -1,
			}
		}, []string{
			`template.healthcheck.test: must start with "NONE", "CMD" or "CMD-SHELL", got "curl"`,
			"template.healthcheck.interval: must be 0 or at least 1ms, got -1s",
			"template.healthcheck.timeout: must be 0 or at least 1ms, got 1µs",
			"template.healthcheck.startPeriod: must be 0 or at least 1ms, got -1ns",
			"template.healthcheck.retries: must be >= 0, got -1",
		}},
		{"healthcheck empty", func(s *Set) { s.Template.Healthcheck = &Healthcheck{} }, []string{
			`template.healthcheck.test: is required (use ["NONE"] to disable the image's healthcheck)`,
		}},
		{"healthcheck CMD alone", func(s *Set) { s.Template.Healthcheck.Test = []string{"CMD-SHELL"} }, []string{
			"template.healthcheck.test: CMD-SHELL needs a command after it",
		}},
		{"healthcheck NONE with arguments", func(s *Set) { s.Template.Healthcheck.Test = []string{"NONE", "x"} }, []string{
			`template.healthcheck.test: ["NONE"] takes no arguments`,
		}},
		{"mounts", func(s *Set) {
			s.Template.VolumeMounts = []VolumeMount{{Target: "/a"}, {Source: "v", Target: "rel"}, {Source: "v"}, {Source: "w", Target: "/data/"}}
			s.VolumeClaimTemplates = append(s.VolumeClaimTemplates, VolumeClaimTemplate{Name: "more", MountPath: "/a"})
		}, []string{
			"template.volumeMounts[0].source: is required",
			`template.volumeMounts[1].target: "rel" must be an absolute path`,
			"template.volumeMounts[2].target: is required",
			`volumeClaimTemplates[0].mountPath: "/data" is already mounted by template.volumeMounts[3].target`,
			`volumeClaimTemplates[2].mountPath: "/a" is already mounted by template.volumeMounts[0].target`,
		}},
		{"resources", func(s *Set) { s.Template.Resources = Resources{CPUs: "-1", Memory: "lots"} }, []string{
			`template.resources.cpus: "-1" is not a positive decimal number of CPUs`,
			`template.resources.memory: "lots" is not a memory size (like 256Mi, 1Gi, 512m or a number of bytes)`,
		}},
		{"reservations", func(s *Set) {
			s.Template.Resources = Resources{CPUs: "1", Memory: "64Mi", Reservations: &Resources{CPUs: "2", Memory: "lots", Reservations: &Resources{}}}
		}, []string{
			`template.resources.reservations.memory: "lots" is not a memory size (like 256Mi, 1Gi, 512m or a number of bytes)`,
			"template.resources.reservations.reservations: only the replica container has reservations",
			`template.resources.reservations.cpus: "2" is more than the limit, "1"`,
		}},
		{"reservations over the limit", func(s *Set) {
			s.Template.Resources = Resources{Memory: "64Mi", Reservations: &Resources{CPUs: "2", Memory: "65Mi"}}
		}, []string{
			`template.resources.reservations.memory: "65Mi" is more than the limit, "64Mi"`,
		}},
		{"claims", func(s *Set) {
			s.VolumeClaimTemplates = []VolumeClaimTemplate{
				{Name: "data", MountPath: "/data"},
				{Name: "data", MountPath: "/data2"},
				{Name: "Bad_Name", MountPath: "/x"},
				{Name: "logs"},
				{Name: "cache", MountPath: "/data"},
			}
		}, []string{
			`volumeClaimTemplates[1].name: "data" is already used by volumeClaimTemplates[0]`,
			`volumeClaimTemplates[2].name: "Bad_Name" must consist of lowercase letters, digits and '-', and start and end with a letter or digit`,
			"volumeClaimTemplates[3].mountPath: is required",
			`volumeClaimTemplates[4].mountPath: "/data" is already mounted by volumeClaimTemplates[0].mountPath`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSet()
			tt.edit(&s)
			err := s.Validate()
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateErrorsAreFieldErrors(t *testing.T) {
	s := validSet()
	s.Replicas = ptr(-2)
	var fe FieldError
	if err := s.Validate(); !errors.As(err, &fe) || fe.Path != "replicas" || fe.Message != "must be >= 0, got -2" {
		t.Errorf("Validate() = %v; as FieldError %+v", err, fe)
	}
}

func TestValidateDoesNotModify(t *testing.T) {
	s := validSet()
	before := validSet()
	_ = s.Validate()
	if !reflect.DeepEqual(s, before) {
		t.Errorf("Validate modified the set:\n%+v\n%+v", s, before)
	}
}
