package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// RemoveLabelled removes what carries the label key=value beside the stored
// sets, which Delete removes: the containers of compose jobs this state
// directory made (each under the lock of its name, which RunJob holds while
// it runs: a job cut short, by a SIGKILL say, leaves its container running),
// then the networks ostset created with the label that nothing uses any more
// (another state directory's jobs, and networks in use, are left). 'ostset
// down -p' finds a project's objects by config.LabelComposeProject with it.
// It reports what it removed, one line each.
func (c *Controller) RemoveLabelled(ctx context.Context, key, value string) ([]string, error) {
	self, err := c.Store.Owner()
	if err != nil {
		return nil, err
	}
	found, err := c.Runtime.Labelled(ctx, key, value)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, j := range found.Jobs {
		if j.Owner.ID != self.ID {
			continue
		}
		if err := c.removeJob(ctx, self, j); err != nil {
			return done, err
		}
		done = append(done, fmt.Sprintf("%s: job container %s removed", j.Set, j.Name))
	}
	for _, n := range found.Networks {
		line, err := c.removeLabelledNetwork(ctx, n)
		if err != nil {
			return done, err
		}
		if line != "" {
			done = append(done, line)
		}
	}
	return done, nil
}

// removeLabelledNetwork is removeNetwork for a network no set names: what it
// did is said in the line it returns ("" for nothing), not in a set's events.
func (c *Controller) removeLabelledNetwork(ctx context.Context, network string) (string, error) {
	unlock, err := c.Store.LockNetwork(ctx, network)
	if err != nil {
		return "", err
	}
	defer unlock()
	removed, err := c.Runtime.RemoveNetwork(ctx, network)
	if stale := (*StaleEndpointsError)(nil); errors.As(err, &stale) {
		return stale.Warning(), nil
	}
	if err != nil || !removed {
		return "", err
	}
	return fmt.Sprintf("network %s removed", network), nil
}

func (c *Controller) removeJob(ctx context.Context, self plan.Owner, j JobContainer) error {
	unlock, err := c.Store.Lock(ctx, j.Set)
	if err != nil {
		return err
	}
	defer unlock()
	ctx = WithOwnership(ctx, plan.Ownership{Self: self})
	return c.Runtime.RemoveReplica(ctx, j.Set, j.ID, config.DefaultGracePeriodSeconds*time.Second)
}
