package present

import (
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
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

// A new value of a Secret's key is a new revision; what changed says so
// without the digest of the value.
func TestRevisionChangesHideValueDigests(t *testing.T) {
	ref := func(value string) config.RevisionSpec {
		return config.RevisionSpec{Template: config.Template{Image: "x", EnvRefs: map[string]envref.Ref{
			"PW": {Kind: envref.Secret, Name: "db", Key: "pw", Digest: envref.Digest([]byte(value))},
		}}}
	}
	want := []string{"envRefs.PW value changed"}
	if got := RevisionChanges(ref("a"), ref("b")); !slices.Equal(got, want) {
		t.Errorf("changes: %q, want %q", got, want)
	}
	added := RevisionChanges(config.RevisionSpec{Template: config.Template{Image: "x"}}, ref("a"))
	for _, c := range added {
		if strings.Contains(c, "sha256") {
			t.Errorf("changes %q show the value's digest", added)
		}
	}
}
