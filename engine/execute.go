package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/volumes"
)

// parallelLimit bounds concurrent Docker calls in Parallel pod management. A set
// of up to this many replicas is created in one wave, as Kubernetes and the
// minimal program do: the engine overlaps the work of concurrent creates and
// starts, and every wave held back costs a whole create-and-start latency
// (docs/benchmarks.md: a Parallel up of 20 took 1.55x the floor with 4 at a
// time and 1.0x with all 20). The bound only keeps a very large set from
// opening hundreds of connections to the engine at once.
const parallelLimit = 64

// execute applies a plan's actions. It makes no decisions: OrderedReady plans hold
// one replica step, Parallel plans run concurrently. It records in st which
// volumes were handed over or released. observed are the set's own volumes as
// the pass observed them (see VolumeSpec.Observed).
// recreateBound bounds the create that replaces a removed exited replica,
// which runs on even when the caller's context has ended.
const recreateBound = 2 * time.Minute

func (c *Controller) execute(ctx context.Context, st *state.State, actions []plan.Action, observed []plan.Volume) error {
	if len(actions) == 0 {
		return nil
	}
	for _, name := range createNetworks(*st, actions) {
		if err := c.ensureNetwork(ctx, name, plan.NetworkCreateLabels(plan.NetworkLabels(st.Spec.Template.Labels), st.Spec.Networks, name)); err != nil {
			return err
		}
	}
	var mu sync.Mutex // guards st.VolumeUse
	// Volumes go first, and alone: a volume removed for its condemned
	// replica must be gone before a replica of its ordinal, back in the
	// range, is created (with a new one).
	if vols := slices.DeleteFunc(slices.Clone(actions), func(a plan.Action) bool { return a.Kind != plan.ActDeleteVolume }); len(vols) > 0 && len(vols) < len(actions) {
		if err := c.execute(ctx, st, vols, observed); err != nil {
			return err
		}
		actions = slices.DeleteFunc(slices.Clone(actions), func(a plan.Action) bool { return a.Kind == plan.ActDeleteVolume })
		observed = slices.DeleteFunc(slices.Clone(observed), func(v plan.Volume) bool {
			return slices.ContainsFunc(vols, func(a plan.Action) bool { return a.Name == v.Name })
		})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelLimit)
	errs := make([]error, len(actions))
	for i, a := range actions {
		g.Go(func() error {
			errs[i] = c.apply(gctx, st, &mu, a, observed)
			if errs[i] == nil && a.Kind == plan.ActDelete && a.Recreate != "" {
				// The replacement is half of one step: a wait that ends (its
				// timeout, Ctrl-C) after the removal must not leave the
				// ordinal without a replica until some later pass.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), recreateBound)
				errs[i] = c.apply(rctx, st, &mu, plan.Action{Kind: plan.ActCreate, Ordinal: a.Ordinal, Name: a.Name, Revision: a.Recreate, Reason: "exited; recreated"}, observed)
				cancel()
			}
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

func (c *Controller) apply(ctx context.Context, st *state.State, mu *sync.Mutex, a plan.Action, observed []plan.Volume) error {
	set := st.Spec.Name
	switch a.Kind {
	case plan.ActCreate:
		rev, ok := st.Revision(a.Revision)
		if !ok {
			return fmt.Errorf("%s: revision %s is not in the history", a.Name, a.Revision)
		}
		spec, err := plan.Render(st.Spec, rev.Name, rev.Spec, a.Ordinal)
		if err == nil {
			err = c.labelOwner(&spec)
		}
		if err == nil {
			err = c.giveFiles(ctx, &spec)
		}
		if err == nil {
			err = c.resolveEnv(&spec)
		}
		if err != nil {
			return err
		}
		for i, vs := range spec.Volumes {
			if j := slices.IndexFunc(observed, func(v plan.Volume) bool { return v.Name == vs.Name }); j >= 0 {
				spec.Volumes[i].Observed = &observed[j]
			}
		}
		began := c.now()
		res, err := c.Runtime.CreateReplica(ctx, spec)
		if err != nil {
			if len(res.CreatedVolumes) > 0 {
				// Made for this replica: its retry reuses them, which is no news.
				mu.Lock()
				st.UseVolumes(slices.DeleteFunc(slices.Clone(spec.Volumes), func(v plan.VolumeSpec) bool { return !slices.Contains(res.CreatedVolumes, v.Name) }), a.Revision, c.now())
				mu.Unlock()
			}
			return err
		}
		c.createdAt.Store(plan.ShortID(res.ID), began)
		if c.Prober != nil { // probed from now, not from the next observation
			c.Prober.Started(set, res.ID, spec.Healthcheck)
		}
		e := c.report(set, a.Name, "%s created (revision %s)", a.Name, a.Revision)
		e.Container = plan.ShortID(res.ID)
		c.record(e)
		mu.Lock()
		defer mu.Unlock()
		for _, v := range res.ReusedVolumes {
			if msg := staleVolume(a.Name, v, st.VolumeUse[v.Name]); msg != "" {
				c.emit(set, a.Name, "%s", msg)
			}
		}
		st.UseVolumes(spec.Volumes, a.Revision, c.now())
	case plan.ActStart:
		// A process stopped between the create and the joins left it on its
		// first network alone.
		if err := c.connect(ctx, st, a); err != nil {
			return err
		}
		started, err := c.start(ctx, st, a)
		if err != nil {
			return err
		}
		if started {
			c.emit(set, a.Name, "%s started", a.Name)
		}
	case plan.ActStop:
		if err := c.Runtime.StopReplica(ctx, set, a.ID, st.Spec.GracePeriod()); err != nil {
			if pe := (*plan.PreStopError)(nil); !errors.As(err, &pe) {
				return err
			}
			c.emit(set, a.Name, "%v (stopped all the same)", err)
		}
		c.emit(set, a.Name, "%s stopped (%s)", a.Name, a.Reason)
	case plan.ActConnect:
		if err := c.connect(ctx, st, a); err != nil {
			return err
		}
		c.emit(set, a.Name, "%s connected again (%s)", a.Name, a.Reason)
	case plan.ActDelete:
		if a.Exited {
			c.keepPrevious(ctx, set, a)
		}
		if err := c.removeReplica(ctx, set, a.Name, a.ID, st.Spec.GracePeriod()); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		c.emit(set, a.Name, "%s removed (%s)%s", a.Name, a.Reason, keptOnScaleDown(st, a))
		delete(st.Removing, a.ID)
		if st.VolumeUse == nil {
			st.VolumeUse = map[string]state.VolumeUse{}
		}
		for _, claim := range st.Spec.VolumeClaimTemplates {
			st.VolumeUse[volumes.Name(claim.Name, set, a.Ordinal)] = state.VolumeUse{Revision: a.Revision, Until: c.now(), Released: a.Releases}
		}
	case plan.ActDeleteVolume:
		if err := c.Runtime.RemoveVolume(ctx, set, a.Name); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		delete(st.VolumeUse, a.Name)
		c.emit(set, a.Name, "volume %s removed (%s)", a.Name, a.Reason)
	case plan.ActCreateInit:
		return c.createInit(ctx, st, mu, a)
	case plan.ActDeleteInit:
		if err := c.Runtime.RemoveReplica(ctx, set, a.ID, st.Spec.GracePeriod()); err != nil {
			return err
		}
		c.emit(set, plan.ReplicaName(set, a.Ordinal), "%s removed (%s)", a.Name, a.Reason)
	}
	return nil
}

// connect connects the replica of a to the networks of its revision after
// the first (Runtime.ConnectNetworks), with its DNS names on each.
func (c *Controller) connect(ctx context.Context, st *state.State, a plan.Action) error {
	rev, ok := st.Revision(a.Revision)
	if !ok {
		return nil // a revision no longer in the history: the replica is replaced, not repaired
	}
	spec, err := plan.Render(st.Spec, rev.Name, rev.Spec, a.Ordinal)
	if err != nil {
		return err
	}
	return c.Runtime.ConnectNetworks(ctx, st.Spec.Name, a.ID, spec.OtherNetworks)
}

// staleVolume is volumes.Stale for a volume a new replica reuses.
func staleVolume(replica string, v plan.Volume, use state.VolumeUse) string {
	return volumes.Stale(replica, v.Name, v.Created, use)
}

// Delete deletes a set: it records the intent first, so that a delete cut short
// (Ctrl-C, a crash, a volume in use) is finished by the next pass of any process
// instead of being undone by it, then removes the set (see finishDelete).
func (c *Controller) Delete(ctx context.Context, name string, removeVolumes bool) error {
	st, unlock, err := c.Store.LockAndLoad(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	resumed := st.Deleting != nil
	if st.Deleting == nil || removeVolumes && !st.Deleting.Volumes {
		resumed = false // a new intent: this command's own
		st.Deleting = &plan.DeleteIntent{Volumes: removeVolumes || volumes.RemoveOnSetDelete(st.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted, false)}
		if err := c.Store.Save(st); err != nil {
			return err
		}
	}
	return c.finishDelete(ctx, st, resumed)
}

// finishDelete removes a set's replicas in reverse ordinal order, then (per the
// intent) its volumes, then its network if ostset made it and nothing else uses
// it, and last the set's state. Another state directory's containers and volumes
// are left alone. The caller holds the set's lock. resumed: the intent was
// recorded by an earlier delete that did not finish; this one says so, and
// which volumes it removes, before it removes anything. A delete that stops
// short returns an *UnfinishedDeleteError: the intent stays recorded.
func (c *Controller) finishDelete(ctx context.Context, st state.State, resumed bool) error {
	spec := st.Spec
	ctx, obs, err := c.observe(ctx, spec.Name, st, ObserveOptions{})
	if err != nil {
		return &UnfinishedDeleteError{Set: spec.Name, Intent: *st.Deleting, Err: err}
	}
	if resumed {
		c.emit(spec.Name, "", "%s", plan.ResumedDelete(spec.Name, *st.Deleting, obs.Volumes))
	}
	if err := c.removeSet(ctx, st, obs); err != nil {
		return &UnfinishedDeleteError{Set: spec.Name, Intent: *st.Deleting, Volumes: plan.VolumeNames(obs.Volumes), Err: err}
	}
	return nil
}

// removeSet is finishDelete once the set is observed.
func (c *Controller) removeSet(ctx context.Context, st state.State, obs plan.Observed) error {
	spec := st.Spec
	// Init containers first: they would be removed once their replica exists,
	// and a replica that does not exist yet is the highest to go anyway.
	for _, x := range obs.Inits {
		if err := c.Runtime.RemoveReplica(ctx, spec.Name, x.ID, spec.GracePeriod()); err != nil {
			return err
		}
		c.emit(spec.Name, plan.ReplicaName(spec.Name, x.Ordinal), "%s removed", x.Name)
	}
	replicas := slices.Clone(obs.Replicas)
	slices.SortFunc(replicas, func(a, b plan.Replica) int { return b.Ordinal - a.Ordinal })
	condemned, kept := plan.VolumesOnDelete(spec, st.CondemnedVolumes, obs)
	// Recorded before the removals, so that a delete cut short keeps it.
	if st.ReleaseVolumes(replicas, c.now()) {
		if err := c.Store.Save(st); err != nil {
			return err
		}
	}
	for _, r := range replicas {
		if err := c.removeReplica(ctx, spec.Name, r.Name, r.ID, spec.GracePeriod()); err != nil {
			return err
		}
		c.emit(spec.Name, r.Name, "%s removed", r.Name)
	}
	if err := c.removeCondemnedVolumes(ctx, st, condemned); err != nil {
		return err
	}
	if st.Deleting.Volumes {
		for _, v := range kept {
			if err := c.Runtime.RemoveVolume(ctx, spec.Name, v.Name); err != nil {
				return err
			}
			c.emit(spec.Name, "", "volume %s removed", v.Name)
		}
		kept = nil
	} else if len(kept) > 0 {
		names := make([]string, len(kept))
		for i, v := range kept {
			names[i] = v.Name
		}
		c.emit(spec.Name, "", "volumes kept: %s", strings.Join(names, ", "))
	}
	c.leftAlone(spec.Name, obs.OwnedElsewhere)
	for _, n := range append(spec.NetworkNames(), st.LeftNetworks...) {
		if _, err := c.removeNetwork(ctx, spec.Name, n); err != nil {
			return err
		}
	}
	if err := c.Store.KeepVolumeUse(spec.Name, st.KeptUse(kept)); err != nil {
		return err
	}
	return errors.Join(c.Store.Delete(spec.Name), c.Store.DeleteEvents(spec.Name))
}

// removeCondemnedVolumes removes, for a delete of the set, the volumes whose
// removal with their replica whenScaled: Delete left pending (see
// State.CondemnedVolumes, plan.VolumesOnDelete): the set's replicas are gone,
// and the delete must not turn them into kept volumes.
func (c *Controller) removeCondemnedVolumes(ctx context.Context, st state.State, vols []plan.Volume) error {
	for _, v := range vols {
		if err := c.Runtime.RemoveVolume(ctx, st.Spec.Name, v.Name); err != nil {
			return err
		}
		c.emit(st.Spec.Name, "", "volume %s removed (whenScaled: Delete; its replica was condemned)", v.Name)
	}
	return nil
}

// removeNetwork removes a network the set no longer uses, if ostset created it
// and no container uses it (another set's, or one of a person's), and reports
// whether it did.
func (c *Controller) removeNetwork(ctx context.Context, set, network string) (bool, error) {
	unlock, err := c.Store.LockNetwork(ctx, network)
	if err != nil {
		return false, err
	}
	defer unlock()
	removed, err := c.Runtime.RemoveNetwork(ctx, network)
	if stale := (*StaleEndpointsError)(nil); errors.As(err, &stale) {
		// The set's own containers are gone from it: the engine's leftovers
		// are for a person to clear.
		c.emit(set, "", "%s", stale.Warning())
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if removed {
		c.emit(set, "", "network %s removed", network)
	}
	return removed, nil
}

// createNetworks names the networks the creates among actions (a delete's
// Recreate included), the starts and the connects attach to, each
// once: those of each one's revision, which is the set's own unless a replica
// is created at an older revision (below the partition).
func createNetworks(st state.State, actions []plan.Action) []string {
	var out []string
	for _, a := range actions {
		rev := a.Revision
		switch {
		case a.Recreate != "": // a delete whose replacement is created at once
			rev = a.Recreate
		case a.Kind != plan.ActCreate && a.Kind != plan.ActCreateInit && a.Kind != plan.ActStart && a.Kind != plan.ActConnect:
			continue
		}
		names := st.Spec.NetworkNames()
		if rev, ok := st.Revision(rev); ok {
			names = rev.Spec.NetworkNames()
		}
		for _, name := range names {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func (c *Controller) ensureNetwork(ctx context.Context, name string, labels map[string]string) error {
	unlock, err := c.Store.LockNetwork(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = c.Runtime.EnsureNetwork(ctx, name, labels)
	return err
}

// Recreate removes the replicas of the given ordinals so that the next pass
// creates them again, at the revision each should run: what deleting a pod does
// in Kubernetes, and how an OnDelete set is updated one replica at a time. As
// a new pod starts a new CrashLoopBackOff, the ordinals' crash-loop back-off
// starts again.
func (c *Controller) Recreate(ctx context.Context, name string, ordinals []int) error {
	st, unlock, err := c.Store.LockAndLoad(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	if st.Deleting != nil {
		return fmt.Errorf("set %s is being deleted (an 'ostset down' did not finish): run 'ostset down %s' to finish, or 'ostset up -f FILE' to cancel the delete", name, name)
	}
	ctx, obs, err := c.observe(ctx, name, st, ObserveOptions{})
	if err != nil {
		return err
	}
	var inits, actions []plan.Action
	for _, ord := range ordinals {
		i := slices.IndexFunc(obs.Replicas, func(r plan.Replica) bool { return r.Ordinal == ord })
		if i < 0 {
			return noReplica(st, obs, ord)
		}
		r := obs.Replicas[i]
		actions = append(actions, plan.Action{Kind: plan.ActDelete, Ordinal: ord, Name: r.Name, ID: r.ID, Revision: r.Revision, Reason: "ostset recreate"})
		for _, x := range obs.Inits {
			if x.Ordinal == ord { // not yet removed after the replica started: they go first (see leftoverInits)
				inits = append(inits, plan.Action{Kind: plan.ActDeleteInit, Ordinal: ord, Name: x.Name, ID: x.ID, Init: x.Init, Revision: x.Revision, Reason: "ostset recreate"})
			}
		}
	}
	volumeUse := maps.Clone(st.VolumeUse)
	reopened := st.ReopenProgress() // a new command: a new progress window, whether it waits or not
	reopened = st.RetryRefused() || reopened
	crashLoops := len(st.CrashLoops)
	for _, ord := range ordinals {
		delete(st.CrashLoops, ord)
	}
	// As a pass does: a process killed after the stop was sent leaves a
	// replica that looks ready until it exits, and the record has the next
	// pass finish its removal (finishRemovals).
	recorded := st.RecordRemovals(actions, c.now())
	if recorded {
		if err := c.Store.Save(st); err != nil {
			return err
		}
	}
	err = c.execute(ctx, &st, inits, nil)
	if err == nil {
		err = c.execute(ctx, &st, actions, nil)
	}
	if recorded || reopened || !maps.Equal(volumeUse, st.VolumeUse) || len(st.CrashLoops) != crashLoops {
		err = errors.Join(err, c.Store.Save(st))
	}
	return err
}

// RemoveKeptVolumes removes the per-ordinal volumes that a deleted set left
// behind (found by their labels) and returns their names. It refuses while a
// container of the set remains (left by down --cascade=orphan, say), and
// answers ErrUnknownSet when there is nothing of the set at all.
func (c *Controller) RemoveKeptVolumes(ctx context.Context, name string) ([]string, error) {
	unlock, err := c.Store.Lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := c.Store.Load(name); !errors.Is(err, state.ErrUnknownSet) {
		return nil, fmt.Errorf("set %s exists: use ostset down %s --volumes", name, name)
	}
	ctx, obs, err := c.observe(ctx, name, state.State{}, ObserveOptions{}) // another state directory's volumes are not ours
	if err != nil {
		return nil, err
	}
	for _, x := range obs.OwnedElsewhere {
		c.report(name, x.Name, "%s %s left alone: it belongs to %s", x.Kind, x.Name, x.Holder)
	}
	if len(obs.Volumes) == 0 {
		return nil, c.Store.Unknown(name)
	}
	if len(obs.Replicas)+len(obs.Inits) > 0 {
		var names []string
		for _, r := range obs.Replicas {
			names = append(names, r.Name)
		}
		for _, x := range obs.Inits {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("set %s is deleted but its containers %s remain (left by --cascade=orphan): run 'ostset up' to adopt them, or remove them first", name, strings.Join(names, ", "))
	}
	var removed []string
	for _, v := range obs.Volumes {
		if err := c.Runtime.RemoveVolume(ctx, name, v.Name); err != nil {
			return removed, err
		}
		removed = append(removed, v.Name)
	}
	return removed, c.Store.ForgetVolumeUse(name)
}

// keepPrevious keeps the last lines of a failed replica container before it
// is removed. Failing to read or keep them does not stop the removal: the
// replica's recovery matters more than its old output.
func (c *Controller) keepPrevious(ctx context.Context, set string, a plan.Action) {
	lines, err := c.Runtime.LogTail(ctx, set, a.ID, state.PreviousLines)
	if err == nil {
		err = c.Store.SavePrevious(state.Previous{Replica: a.Name, Container: plan.ShortID(a.ID), Revision: a.Revision,
			Reason: a.Reason, Removed: c.now(), Lines: lines})
	}
	if err != nil {
		c.logger().Warn("could not keep the logs of a failed replica", "replica", a.Name, "err", err)
	}
}

// removeReplica removes a replica (Runtime.RemoveReplica); a pre_stop hook
// that failed is an event, and the replica is removed all the same.
func (c *Controller) removeReplica(ctx context.Context, set, name, id string, grace time.Duration) error {
	err := c.Runtime.RemoveReplica(ctx, set, id, grace)
	if pe := (*plan.PreStopError)(nil); errors.As(err, &pe) {
		c.emit(set, name, "%v (stopped all the same)", pe)
		return nil
	}
	return err
}
