package state

import (
	"errors"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

// A stored set is changed only by the compose project it belongs to, or by
// set files when it belongs to none; a job never takes a stored set's name.
func TestApplyRefusesAnotherOwnersSet(t *testing.T) {
	set := func(project, source string) config.Set {
		s := config.Set{Name: "p-x-db", Replicas: ptr(1), Source: source, Template: config.Template{Image: "img", Labels: map[string]string{}}}
		if project != "" {
			s.Template.Labels[config.LabelComposeProject] = project
		}
		s.ApplyDefaults()
		return s
	}
	var st State
	if _, err := st.Apply(set("p", "p/compose.yaml"), ImageIDs{Main: "sha256:a"}, "up", t0, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(set("p", "p/compose.yaml"), ImageIDs{Main: "sha256:b"}, "up", t0, true); err != nil {
		t.Fatalf("the same project: %v", err)
	}
	for _, other := range []config.Set{set("p-x", "px/compose.yaml"), set("", "db.yaml:1")} {
		_, err := st.Apply(other, ImageIDs{Main: "sha256:c"}, "up", t0, true)
		var oe *OwnerError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), other.Source) || !strings.Contains(err.Error(), "p/compose.yaml") {
			t.Errorf("%s over project p's set: %v", other.Source, err)
		}
	}
	if st.Spec.Template.Labels[config.LabelComposeProject] != "p" || st.Spec.Source != "p/compose.yaml" {
		t.Errorf("a refused apply changed the stored set: %+v", st.Spec)
	}
	if err := CheckOwner(st.Spec, set("p", "p/compose.yaml"), true); err == nil || !strings.Contains(err.Error(), "ostset down p-x-db") {
		t.Errorf("a job of the set's own project: %v", err)
	}
}
