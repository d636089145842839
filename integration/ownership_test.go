//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
)

// A foreign container holding a replica's name is reported, never touched, and
// an OrderedReady set does not go past it.
func TestForeignContainerIsReportedNotTouched(t *testing.T) {
	h := newHarness(t)
	foreign, err := testcontainers.Run(context.Background(), imageV1,
		testcontainers.WithName(h.name(1)),
		testcontainers.WithLabels(map[string]string{"io.ostset.test": h.set}))
	testcontainers.CleanupContainer(t, foreign)
	if err != nil {
		t.Fatal(err)
	}
	foreignID := foreign.GetContainerID()

	r := h.ostset("up", "-f", h.writeSpec(baseSpec, imageV1), "--timeout", "5s")
	if r.code != 3 {
		t.Fatalf("up with a foreign %s: want exit 3 (timeout), got %s", h.name(1), r)
	}
	if !strings.Contains(r.stdout, h.name(1)+": the name is held by container "+foreignID[:12]) {
		t.Errorf("up output does not report the conflict:\n%s", r)
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
