package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ostset/ostset/config"
)

// parallelLimit bounds concurrent Docker calls in Parallel pod management.
const parallelLimit = 4

// execute applies a plan's actions. It makes no decisions: OrderedReady plans hold
// one replica step, Parallel plans run concurrently.
func (c *Controller) execute(ctx context.Context, st State, actions []Action) error {
	if len(actions) == 0 {
		return nil
	}
	if hasCreate(actions) {
		if _, err := c.Runtime.EnsureNetwork(ctx, st.Spec.Network); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelLimit)
	var errs = make([]error, len(actions))
	for i, a := range actions {
		g.Go(func() error {
			errs[i] = c.apply(gctx, st, a)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

func hasCreate(actions []Action) bool {
	for _, a := range actions {
		if a.Kind == ActCreate {
			return true
		}
	}
	return false
}

func (c *Controller) apply(ctx context.Context, st State, a Action) error {
	set := st.Spec.Name
	switch a.Kind {
	case ActCreate:
		rev, ok := st.Revision(a.Revision)
		if !ok {
			return fmt.Errorf("%s: revision %s is not in the history", a.Name, a.Revision)
		}
		spec, err := Render(st.Spec, rev, a.Ordinal)
		if err != nil {
			return err
		}
		began := c.now()
		res, err := c.Runtime.CreateReplica(ctx, spec)
		if err != nil {
			return err
		}
		c.createdAt.Store(shortID(res.ID), began)
		c.emit(set, a.Name, "%s created (revision %s)", a.Name, a.Revision)
		for _, v := range res.ReusedVolumes {
			c.emit(set, a.Name, "%s reuses volume %s (created %s)", a.Name, v.Name, v.Created.Local().Format("2006-01-02 15:04"))
		}
	case ActStart:
		if err := c.Runtime.StartReplica(ctx, set, a.ID); err != nil {
			return err
		}
		c.emit(set, a.Name, "%s started", a.Name)
	case ActDelete:
		if err := c.Runtime.RemoveReplica(ctx, set, a.ID, st.Spec.GracePeriod()); err != nil {
			return err
		}
		c.emit(set, a.Name, "%s removed (%s)", a.Name, a.Reason)
	case ActDeleteVolume:
		if err := c.Runtime.RemoveVolume(ctx, set, a.Name); err != nil {
			return err
		}
		c.emit(set, a.Name, "volume %s removed (%s)", a.Name, a.Reason)
	}
	return nil
}

// DeleteSet removes a set's replicas in reverse ordinal order, then (per the
// retention policy or explicitly) its volumes, then its network if ostset made it
// and nothing else uses it. The caller holds the set's lock.
func (c *Controller) DeleteSet(ctx context.Context, spec config.Set, removeVolumes bool) error {
	obs, err := c.Runtime.Observe(ctx, spec.Name, ObserveOptions{})
	if err != nil {
		return err
	}
	replicas := slices.Clone(obs.Replicas)
	slices.SortFunc(replicas, func(a, b Replica) int { return b.Ordinal - a.Ordinal })
	for _, r := range replicas {
		if err := c.Runtime.RemoveReplica(ctx, spec.Name, r.ID, spec.GracePeriod()); err != nil {
			return err
		}
		c.emit(spec.Name, r.Name, "%s removed", r.Name)
	}
	if removeVolumes {
		for _, v := range obs.Volumes {
			if err := c.Runtime.RemoveVolume(ctx, spec.Name, v.Name); err != nil {
				return err
			}
			c.emit(spec.Name, "", "volume %s removed", v.Name)
		}
	} else if len(obs.Volumes) > 0 {
		names := make([]string, len(obs.Volumes))
		for i, v := range obs.Volumes {
			names[i] = v.Name
		}
		c.emit(spec.Name, "", "volumes kept: %s", strings.Join(names, ", "))
	}
	removed, err := c.Runtime.RemoveNetwork(ctx, spec.Network)
	if err != nil {
		return err
	}
	if removed {
		c.emit(spec.Name, "", "network %s removed", spec.Network)
	}
	return nil
}
