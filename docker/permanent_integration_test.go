//go:build integration

package docker

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// pfSet is a set name of this file's tests, cleaned up by label.
func pfSet(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	set := "pf-" + hex.EncodeToString(b)
	t.Cleanup(func() { cleanup(t, set) })
	return set
}

// The engine's refusals that no retry cures come back as permanent errors
// with the engine's words, on the engine the tests run on; a held host port
// also names the container that holds it. No container is left behind.
func TestPermanentStartErrors(t *testing.T) {
	ctx := testCtx(t)
	set := pfSet(t)
	holder := replicaSpec(set, 0)
	holder.Ports = []plan.PortBinding{{ContainerPort: 8080, HostPort: 21430}}
	if _, err := rt.CreateReplica(ctx, holder); err != nil {
		t.Fatal(err)
	}
	port := replicaSpec(set, 1)
	port.Ports = holder.Ports
	bind := replicaSpec(set, 2)
	bind.Mounts = []plan.Mount{{Type: "bind", Source: "/nonexistent-" + set, Target: "/conf"}}
	cases := []struct {
		spec  plan.ReplicaSpec
		words []string
	}{
		{port, []string{"port is already allocated", "held by container " + holder.Name + " of set " + set}},
		{bind, []string{"bind source path does not exist"}},
	}
	if limits, _ := rt.EngineLimits(ctx); limits["nofile"] > 0 && limits["nofile"] < 1<<20 {
		over := replicaSpec(set, 3)
		over.Ulimits = []plan.Ulimit{{Name: "nofile", Soft: limits["nofile"] + 1, Hard: limits["nofile"] + 1}}
		cases = append(cases, struct {
			spec  plan.ReplicaSpec
			words []string
		}{over, []string{"rlimit", "operation not permitted"}})
	} else {
		t.Log("the engine's nofile limit is unknown or high: the ulimit case is not tried")
	}
	for _, c := range cases {
		_, err := rt.CreateReplica(ctx, c.spec)
		if !engine.IsPermanent(err) {
			t.Errorf("%s: %v, want a permanent error", c.spec.Name, err)
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.spec.Name, err, w)
			}
		}
		if _, err := rt.cli.ContainerInspect(ctx, c.spec.Name, client.ContainerInspectOptions{}); err == nil {
			t.Errorf("%s: the refused container is left behind", c.spec.Name)
		}
	}
}
