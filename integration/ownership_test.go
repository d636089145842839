//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
)

// A foreign container holding a replica's name is reported, never touched, and
// an OrderedReady set does not go past it.
func TestForeignContainerIsReportedNotTouched(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	foreign, err := testcontainers.Run(context.Background(), imageV1,
		testcontainers.WithName(h.name(1)),
		testcontainers.WithLabels(map[string]string{"io.ostset.test": h.set}))
	testcontainers.CleanupContainer(t, foreign)
	if err != nil {
		t.Fatal(err)
	}
	foreignID := foreign.GetContainerID()

	// up stops once only the conflict is left, without waiting for a timeout.
	r := h.ostset("up", "-f", h.writeSpec(baseSpec, imageV1), "--timeout", "2m")
	if r.code != 1 {
		t.Fatalf("up with a foreign %s: want exit 1 (a conflict only a person can clear), got %s", h.name(1), r)
	}
	held := h.name(1) + ": the name is held by container " + foreignID[:12]
	if !strings.Contains(r.stdout, held) || !strings.Contains(r.stderr, "rollout of "+h.set+" cannot go on: "+held) ||
		!strings.Contains(r.stderr, "remove or rename it") {
		t.Errorf("up output does not report the conflict and the way out:\n%s", r)
	}
	if d := h.mustOstset("describe", h.set); !strings.Contains(d.stdout, "conflict: "+held) {
		t.Errorf("describe does not report the conflict:\n%s", d)
	}
	var status struct{ Conflicts []string }
	if err := json.Unmarshal([]byte(h.mustOstset("status", h.set, "-o", "json").stdout), &status); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(status.Conflicts, h.name(1)) {
		t.Errorf("status conflicts %v lack %s", status.Conflicts, h.name(1))
	}
	if c := h.inspect(h.name(1)); c.ID != foreignID || c.State.Status != "running" {
		t.Errorf("the foreign container was touched: %s %s", c.ID, c.State.Status)
	}
	if h.exists(h.name(2)) {
		t.Errorf("%s created past the conflict in OrderedReady", h.name(2))
	}

	// down leaves it alone too.
	h.mustOstset("down", h.set)
	if c := h.inspect(h.name(1)); c.ID != foreignID || c.State.Status != "running" {
		t.Errorf("down touched the foreign container: %s %s", c.ID, c.State.Status)
	}
}

// down --cascade=orphan forgets the set and leaves its containers running; up of
// the same set adopts them without restarting any.
func TestOrphanThenAdopt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := h.writeSpec(scaledSpec(2, ""), imageV1)
	h.mustOstset("up", "-f", file)
	started := map[string]string{}
	for ord := range 2 {
		started[h.name(ord)] = h.docker("inspect", "-f", "{{.Id}} {{.State.StartedAt}}", h.name(ord))
	}
	h.mustOstset("down", h.set, "--cascade=orphan")
	if r := h.ostset("status", h.set); r.code != 2 {
		t.Errorf("status after orphaning: want exit 2 (unknown set), got %s", r)
	}
	for name := range started {
		if got := h.docker("inspect", "-f", "{{.State.Status}}", name); got != "running" {
			t.Errorf("%s after orphaning: %s", name, got)
		}
	}
	r := h.mustOstset("up", "-f", file)
	for name, want := range started {
		if got := h.docker("inspect", "-f", "{{.Id}} {{.State.StartedAt}}", name); got != want {
			t.Errorf("%s was recreated or restarted on adoption: %s, was %s\n%s", name, got, want, r)
		}
	}
}

// The set's network: created and labelled when missing and removed by down; an
// existing network is reused and left alone.
func TestNetworkOwnership(t *testing.T) {
	t.Parallel()
	t.Run("created", func(t *testing.T) {
		h := newHarness(t)
		h.mustOstset("up", "-f", h.writeSpec(scaledSpec(1, ""), imageV1))
		if got := h.docker("network", "inspect", "-f", `{{index .Labels "io.ostset.managed"}}`, h.network); got != "true" {
			t.Errorf("network label io.ostset.managed = %q", got)
		}
		h.mustOstset("down", h.set)
		if ids := h.dockerLines("network", "ls", "-q", "--filter", "name=^"+h.network+"$"); len(ids) != 0 {
			t.Errorf("network %s left after down", h.network)
		}
	})
	t.Run("existing", func(t *testing.T) {
		h := newHarness(t)
		id := h.docker("network", "create", "--label", "io.ostset.test="+h.set, h.network)
		t.Cleanup(func() { h.dockerQuiet("network", "rm", id) })
		h.mustOstset("up", "-f", h.writeSpec(scaledSpec(1, ""), imageV1))
		if ids := h.dockerLines("network", "ls", "-q", "--no-trunc", "--filter", "name=^"+h.network+"$"); len(ids) != 1 || ids[0] != id {
			t.Errorf("networks named %s: %v, want only %s", h.network, ids, id)
		}
		h.mustOstset("down", h.set)
		if ids := h.dockerLines("network", "ls", "-q", "--no-trunc", "--filter", "name=^"+h.network+"$"); len(ids) != 1 {
			t.Errorf("down removed a network ostset did not create")
		}
	})
}

// Template expansion: {{.Name}} and friends are expanded per replica; an invalid
// template is refused at up time, naming the field.
func TestTemplateExpansion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	spec := strings.Replace(scaledSpec(2, ""), "  healthcheck:", "  env:\n    GREETING: \"hi {{.Name}} #{{.Ordinal}} of {{.Set}} in {{.Service}}\"\n  healthcheck:", 1)
	h.mustOstset("up", "-f", h.writeSpec(spec, imageV1))
	env := h.inspect(h.name(1)).Config.Env
	want := fmt.Sprintf("GREETING=hi %s #1 of %s in svc-%s", h.name(1), h.set, h.set)
	if !slices.Contains(env, want) {
		t.Errorf("env %v lacks %s", env, want)
	}
	bad := strings.Replace(spec, "{{.Name}}", "{{.Hostname}}", 1)
	if r := h.ostset("up", "-f", h.writeSpec(bad, imageV1)); r.code != 2 || !strings.Contains(r.stderr, "template.env.GREETING") {
		t.Errorf("invalid template: want exit 2 naming template.env.GREETING, got %s", r)
	}
}
