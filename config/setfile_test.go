package config

import (
	"reflect"
	"strings"
	"testing"
)

// setFileCases are the examples and a set with every field.
var setFileCases = map[string]string{
	"web":      "../examples/web/set.yaml",
	"etcd":     "../examples/etcd/set.yaml",
	"redis":    "../examples/redis/set.yaml",
	"postgres": "../examples/postgres/set.yaml",
	"kafka":    "../examples/kafka/set.yaml",
	"every":    "testdata/every.yaml",
}

func loadCase(t *testing.T, path string) Set {
	t.Helper()
	sets, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 {
		t.Fatalf("%s: %d sets, want 1", path, len(sets))
	}
	return sets[0]
}

// A set written as a set file reads back as the same set, and writes only
// the fields that hold something.
func TestMarshalSetFileReadsBack(t *testing.T) {
	for name, path := range setFileCases {
		t.Run(name, func(t *testing.T) {
			s := loadCase(t, path)
			out, err := MarshalSetFile(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(name+".yaml", out, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := back[0]
			got.Source, got.Written, got.Lines, s.Source, s.Written, s.Lines = "", nil, nil, "", nil, nil
			if !reflect.DeepEqual(got, s) {
				t.Errorf("read back as\n%+v\nwant\n%+v\nfrom\n%s", got, s, out)
			}
			for _, empty := range []string{`hostIP: ""`, `cpus: ""`, `imagePullPolicy: ""`, ": []", ": {}", ": null", ": 0s", "readOnly: false"} {
				if strings.Contains(string(out), empty) {
					t.Errorf("writes an empty field (%s):\n%s", empty, out)
				}
			}
		})
	}
}

// A zero that is a choice stays: replicas 0, no history, no grace, env "".
func TestMarshalSetFileKeepsZeroChoices(t *testing.T) {
	s := Set{Name: "w", Replicas: ptr(0), RevisionHistoryLimit: ptr(0), TerminationGracePeriodSeconds: ptr(0),
		Template: Template{Image: "x", Env: map[string]string{"E": ""}, Init: ptr(false)}}
	out, err := MarshalSetFile(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"replicas: 0", "revisionHistoryLimit: 0", "terminationGracePeriodSeconds: 0", `E: ""`, "init: false"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%q missing:\n%s", want, out)
		}
	}
}
