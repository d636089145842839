package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
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

// A job never touches a set's containers: a job whose name is a stored set is
// refused under the set's lock, and so is one whose name a set's replicas
// hold while the set is not stored (forgotten with --cascade orphan); a job's
// own container is labelled io.ostset.job, and the one a run cut short left
// is what the next run removes.
func TestRunJobNeverTouchesASet(t *testing.T) {
	rt := enginetest.New()
	c, _ := newController(t, rt, 2, "v1")
	converge(t, c)
	job := config.Set{Name: "web", Replicas: ptr(1), Source: "compose.yaml", Template: config.Template{Image: "migrate:1"}}
	rt.Log = nil
	err := c.RunJob(context.Background(), job)
	if oe := (*state.OwnerError)(nil); !errors.As(err, &oe) {
		t.Fatalf("a job named as a stored set: %v", err)
	}
	if len(rt.Log) > 0 {
		t.Fatalf("the refused job acted: %v", rt.Log)
	}
	if err := c.Store.Delete("web"); err != nil { // as ostset down --cascade orphan leaves it
		t.Fatal(err)
	}
	err = c.RunJob(context.Background(), job)
	if err == nil || !strings.Contains(err.Error(), "web-0, web-1") || !strings.Contains(err.Error(), "not stored") {
		t.Fatalf("a job named as an orphaned set's replicas: %v", err)
	}
	if len(rt.Log) > 0 {
		t.Fatalf("the refused job acted: %v", rt.Log)
	}

	rt = enginetest.New()
	c = &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}}
	left := plan.ReplicaSpec{Set: "app-migrate", Name: "app-migrate-0", Image: "sha256:migrate:1", Labels: map[string]string{plan.LabelJob: "true"}}
	if _, err := rt.CreateReplica(context.Background(), left); err != nil {
		t.Fatal(err)
	}
	rt.Log = nil
	job = config.Set{Name: "app-migrate", Replicas: ptr(1), Network: "app", Template: config.Template{Image: "migrate:1"}}
	if err := c.RunJob(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if want := []string{"remove app-migrate-0", "create app-migrate-0", "exit app-migrate-0 0", "remove app-migrate-0"}; !prefixes(rt.Log, want) {
		t.Fatalf("log %v, want %v", rt.Log, want)
	}
	if got := rt.Created[len(rt.Created)-1].Labels[plan.LabelJob]; got != "true" {
		t.Fatalf("the job's container has %s=%q", plan.LabelJob, got)
	}
}
