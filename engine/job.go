package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// RunJob runs job, a set of one replica that others wait for (compose's
// service_completed_successfully), once and to completion, as docker compose
// up runs it: its container (plan.ReplicaName of the first ordinal) on the
// job's networks and volumes, removed once it has exited. A container that a
// run cut short left behind is removed first. A non-zero exit is an error
// with the last lines of the output. Nothing of the run is stored: a job is
// not a set, so no pass and no daemon run it again.
func (c *Controller) RunJob(ctx context.Context, job config.Set) error {
	self, err := c.Store.Owner()
	if err != nil {
		return err
	}
	ctx = WithOwnership(ctx, plan.Ownership{Self: self})
	obs, err := c.Runtime.Observe(ctx, job.Name, ObserveOptions{})
	if err != nil {
		return err
	}
	for _, r := range obs.Replicas {
		if err := c.Runtime.RemoveReplica(ctx, job.Name, r.ID, job.GracePeriod()); err != nil {
			return err
		}
	}
	imageID, err := c.Runtime.EnsureImage(ctx, job.Template.Image, job.Template.PullPolicy(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", job.Name, err)
	}
	rs := job.RevisionSpec(imageID)
	spec, err := plan.Render(job, config.RevisionName(job.Name, rs.Hash()), rs, job.FirstOrdinal())
	if err != nil {
		return err
	}
	spec.Labels[plan.LabelOwner], spec.Labels[plan.LabelStateDir] = self.ID, self.Dir
	if err := c.resolveEnv(&spec); err != nil {
		return err
	}
	for _, n := range rs.NetworkNames() {
		if err := c.ensureNetwork(ctx, n); err != nil {
			return err
		}
	}
	res, err := c.Runtime.CreateReplica(ctx, spec)
	if err != nil {
		return err
	}
	code, err := c.Runtime.WaitExit(ctx, job.Name, res.ID)
	var tail []string
	if err == nil && code != 0 {
		tail, _ = c.Runtime.LogTail(ctx, job.Name, res.ID, 20)
	}
	if rmErr := c.Runtime.RemoveReplica(context.WithoutCancel(ctx), job.Name, res.ID, job.GracePeriod()); err == nil {
		err = rmErr
	}
	switch {
	case err != nil:
		return err
	case code != 0:
		out := ""
		if len(tail) > 0 {
			out = ":\n  " + strings.Join(tail, "\n  ")
		}
		return fmt.Errorf("%s: exited with code %d (service_completed_successfully)%s", spec.Name, code, out)
	}
	return nil
}
