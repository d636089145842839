package main

import (
	"context"
	"strings"
	"testing"
)

// While a set is paused short of its update revision, up does not say
// "rollout complete", and rollout status exits 1, as kubectl's does.
func TestPausedRolloutIsNotComplete(t *testing.T) {
	f := newFakeCLI(t)
	f.up(2)
	if _, _, err := f.run(context.Background(), "rollout", "pause", "web"); err != nil {
		t.Fatal(err)
	}
	f.up(3) // replicas only: same revision, the new ordinal is created
	out, _, err := f.run(context.Background(), "rollout", "restart", "web")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "rollout complete") || !strings.Contains(out, "web: rollout paused: 0 of 3 replicas at revision ") {
		t.Errorf("restart while paused said:\n%s", out)
	}
	out, _, err = f.run(context.Background(), "rollout", "status", "web")
	if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), "rollout resume web") {
		t.Errorf("rollout status while paused: exit %d (%v)\n%s", exitCode(err), err, out)
	}
	if _, _, err := f.run(context.Background(), "rollout", "resume", "web"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := f.run(context.Background(), "rollout", "status", "web"); err != nil {
		t.Errorf("rollout status after resume: %v\n%s", err, out)
	}
}
