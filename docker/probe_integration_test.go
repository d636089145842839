//go:build integration

package docker

import (
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

// ProbeHealth runs a healthcheck test in a running replica as Docker runs
// it: a passing test passes, a failing one fails with its output, one that
// cannot run (no shell in the image) or outlives its timeout fails, and
// none of them is an error; a container that is gone is one.
func TestProbeHealthRunsTheTest(t *testing.T) {
	ctx := testCtx(t)
	set := newSet(t)
	spec := replicaSpec(set, 0)
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	probe := func(test ...string) (bool, string, error) {
		return rt.ProbeHealth(ctx, set, res.ID, plan.Healthcheck{Test: test, Timeout: 5 * time.Second})
	}
	waitFor(t, 30*time.Second, "the app to answer its healthcheck", func() bool {
		ok, _, err := probe("CMD", "/app", "health")
		return ok && err == nil
	})
	if ok, out, err := probe("CMD", "/app", "fail"); ok || err != nil || !strings.Contains(out, "failing on purpose") {
		t.Errorf("a failing test: %v %q %v", ok, out, err)
	}
	if ok, _, err := probe("CMD-SHELL", "true"); ok || err != nil {
		t.Errorf("CMD-SHELL in an image without a shell: %v %v, want a failed probe", ok, err)
	}
	if ok, out, err := rt.ProbeHealth(ctx, set, res.ID, plan.Healthcheck{Test: []string{"CMD", "/app", "health"}, Timeout: time.Nanosecond}); ok || err != nil || !strings.Contains(out, "timeout") {
		t.Errorf("a probe past its timeout: %v %q %v", ok, out, err)
	}
	if err := rt.RemoveReplica(ctx, set, res.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, _, err := probe("CMD", "/app", "health"); err == nil {
		t.Error("probing a removed container is no error")
	}
}
