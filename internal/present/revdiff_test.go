package present

import (
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
)

// rollout history says what changed in each revision, not only the command.
func TestRevisionChanges(t *testing.T) {
	v1 := config.RevisionSpec{ImageID: "sha256:aaa", Template: config.Template{Image: "ostset/web:1",
		Env: map[string]string{"VERSION": "1", "MODE": "x"}}}
	v2 := v1
	v2.ImageID, v2.Template.Image = "sha256:bbb", "ostset/web:2"
	v2.Template.Env = map[string]string{"VERSION": "2"}
	v2.Template.Args = []string{"serve"}
	want := []string{`args ["serve"] (added)`, "env.MODE x (removed)", "env.VERSION 1 -> 2", "image ostset/web:1 -> :2"}
	if got := RevisionChanges(v1, v2); !slices.Equal(got, want) {
		t.Errorf("changes:\n%q\nwant:\n%q", got, want)
	}
	rebuilt := v1
	rebuilt.ImageID = "sha256:ccc"
	rebuilt.RestartedAt = "2026-01-01T00:00:00Z"
	want = []string{"image ostset/web:1 rebuilt (aaa -> ccc)", "restarted"}
	if got := RevisionChanges(v1, rebuilt); !slices.Equal(got, want) {
		t.Errorf("changes:\n%q\nwant:\n%q", got, want)
	}
}
