package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// RunJob runs job, a set of one replica that others wait for (compose's
// service_completed_successfully), once and to completion, as docker compose
// up runs it: its container (plan.ReplicaName of the first ordinal, labelled
// plan.LabelJob, so that no pass takes it for a replica) on the job's
// networks and volumes, removed once it has exited. A job's container that a
// run cut short left behind is removed first. A non-zero exit is an error
// with the last lines of the output. Nothing of the run is stored: a job is
// not a set, so no pass and no daemon run it again.
//
// The run holds the lock of the job's name from start to end, as a pass holds
// its set's: a job whose name is a stored set is refused (a *state.OwnerError),
// and so is a container of that name that is a set's replica, not a job's
// (one 'ostset down --cascade orphan' left): a job never touches a set's
// containers.
func (c *Controller) RunJob(ctx context.Context, job config.Set) error {
	self, err := c.Store.Owner()
	if err != nil {
		return err
	}
	unlock, err := c.Store.Lock(ctx, job.Name)
	if err != nil {
		return err
	}
	defer unlock()
	switch st, err := c.Store.Load(job.Name); {
	case err == nil:
		return state.CheckOwner(st.Spec, job, true)
	case !errors.Is(err, state.ErrUnknownSet):
		return err
	}
	ctx = WithOwnership(ctx, plan.Ownership{Self: self})
	obs, err := c.Runtime.Observe(ctx, job.Name, ObserveOptions{})
	if err != nil {
		return err
	}
	var sets []string
	for _, r := range obs.Replicas {
		sets = append(sets, r.Name)
	}
	for _, x := range obs.Inits {
		sets = append(sets, x.Name)
	}
	if len(sets) > 0 {
		return fmt.Errorf("%s: job %s: containers %s carry the labels of a set %s that is not stored (left by 'ostset down --cascade orphan'?); "+
			"a job never touches a set's containers: remove them ('docker rm -f %s') or rename the service",
			job.Source, job.Name, strings.Join(sets, ", "), job.Name, strings.Join(sets, " "))
	}
	for _, f := range obs.Foreign {
		if !f.Job || f.Owner != job.Name {
			continue
		}
		if err := c.Runtime.RemoveReplica(ctx, job.Name, f.ID, job.GracePeriod()); err != nil {
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
	spec.Labels[plan.LabelJob] = "true"
	if err := c.resolveEnv(&spec); err != nil {
		return err
	}
	if err := c.giveFiles(ctx, &spec); err != nil {
		return err
	}
	for _, n := range rs.NetworkNames() {
		if err := c.ensureNetwork(ctx, n, plan.NetworkCreateLabels(plan.NetworkLabels(spec.Labels), rs.Networks, n)); err != nil {
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
