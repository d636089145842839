package main

import (
	"context"
	"strings"
	"testing"
)

// A replica name the set does not have (web-9 of a set of 3) is invalid
// input: exit 2, naming the replicas the set has, for every command that
// takes one, rather than the engine's "No such container". A replica of the
// set whose container is missing for now is not (exit 1), and says which
// have one.
func TestReplicaTheSetDoesNotHave(t *testing.T) {
	f := newFakeCLI(t)
	f.up(3)
	f.rt.Destroy("web-1")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"exec", "--state-dir", f.dir, "web-9", "--", "true"}, exitInvalid, "set web has no replica web-9: its 3 replicas are web-0 to web-2 (with a container: web-0, web-2)"},
		{[]string{"logs", "web-9"}, exitInvalid, "set web has no replica web-9: its 3 replicas are web-0 to web-2"},
		{[]string{"recreate", "web-9"}, exitInvalid, "set web has no replica web-9: its 3 replicas are web-0 to web-2"},
		{[]string{"exec", "--state-dir", f.dir, "web-1", "--", "true"}, exitFailure, "replica web-1 of set web has no container now (with a container: web-0, web-2; see ostset get web)"},
		{[]string{"logs", "web-1"}, exitFailure, "replica web-1 of set web has no container now"},
	}
	for _, c := range cases {
		_, _, err := f.run(context.Background(), c.args...)
		if code := exitCode(err); code != c.code || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ostset %s: exit %d, %v; want exit %d and %q", strings.Join(c.args, " "), code, err, c.code, c.want)
		}
	}
}
