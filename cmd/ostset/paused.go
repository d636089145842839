package main

import (
	"context"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/internal/present"
)

// pausedStatus reads the set's status after a wait: whether its rollout is
// paused short of the update revision (present.PausedShort).
func pausedStatus(ctx context.Context, c *engine.Controller, name string) (plan.Status, bool) {
	s, st, err := c.Status(ctx, name)
	if err != nil {
		return s, false
	}
	return s, present.PausedShort(st, s)
}
