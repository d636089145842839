package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A job runs once to completion and its container is removed; a container a
// run cut short left is removed first; a non-zero exit is an error with the
// output's last lines.
func TestRunJob(t *testing.T) {
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	one := 1
	job := config.Set{Name: "app-migrate", Replicas: &one, Network: "app", Template: config.Template{Image: "migrate:1"}}
	if err := c.RunJob(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if want := []string{"create app-migrate-0", "exit app-migrate-0 0", "remove app-migrate-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	rt.JobExit = map[string]int{"app-migrate-0": 3}
	rt.Output = map[string][]string{"app-migrate-0": {"applying 0002", "relation exists"}}
	rt.Log = nil
	err := c.RunJob(context.Background(), job)
	if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "relation exists") {
		t.Fatalf("a failed job: %v", err)
	}
	if want := []string{"create app-migrate-0", "exit app-migrate-0 3", "remove app-migrate-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
}
