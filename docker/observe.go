package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/volume"
	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// Observe takes two ContainerLists at once, one of the containers labelled
// with the set, one of those named as its replicas and init containers are
// (foreign ones among them), and one VolumeList.
//
// A container carrying io.ostset.set=<set> is a Replica, or an InitContainer if it
// also carries io.ostset.init, or Foreign (Job) if it carries io.ostset.job
// (a compose job of the set's name). Its ordinal comes from the io.ostset.ordinal label,
// else from its name; if neither parses it is -1 (outside any ordinal range, so the
// engine removes it). A container without that label whose name is <set>-<digits>
// or <set>-<digits>-init-<name> is Foreign. A running replica carries the
// networks it has an endpoint on (whether they are the right ones is the
// planner's to judge). Replicas and volumes carry their owner
// labels; which of them the state directory owns is the engine's to decide.
// A replica that is not ready is inspected to say why (Replica.NotReady).
// The containers opts.Died names are inspected beside the list, and their
// state taken from the inspect (see engine.ObserveOptions.Died).
func (r *Runtime) Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	watched, mark := r.died.Pending(set)
	if len(watched) > 0 {
		opts.Died = slices.Clone(opts.Died)
	}
	for _, id := range watched {
		if !slices.Contains(opts.Died, id) {
			opts.Died = append(opts.Died, id)
		}
	}
	// The calls overlap: the volume list beside the container list, and the
	// inspections the list calls for beside each other. A pass's observation
	// is between a Docker event and the create that answers it.
	var volumes []plan.Volume
	vols := errgroup.Group{}
	vols.Go(func() (err error) {
		volumes, err = r.listVolumes(ctx, set)
		return err
	})
	died := make([]*container.InspectResponse, len(opts.Died))
	dg := errgroup.Group{}
	for i, id := range opts.Died {
		dg.Go(func() error {
			res, err := r.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
			if cerrdefs.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("inspect container %s: %w", shortID(id), err)
			}
			died[i] = &res.Container
			return nil
		})
	}
	list, err := r.listContainers(ctx, set)
	if err != nil {
		_, _ = vols.Wait(), dg.Wait()
		return plan.Observed{}, fmt.Errorf("observe set %s: list containers: %w", set, err)
	}
	var obs plan.Observed
	for _, c := range list {
		classify(&obs, set, c)
	}
	if err := dg.Wait(); err != nil {
		_ = vols.Wait()
		return plan.Observed{}, fmt.Errorf("observe set %s: %w", set, err)
	}
	podman := r.isPodman(ctx) // its list carries no health: inspect each running replica
	inspected := map[string]bool{}
	for _, c := range died {
		if c != nil {
			inspected[c.ID] = fromInspect(obs.Replicas, *c, opts.Logs)
		}
	}
	g := errgroup.Group{}
	g.SetLimit(4)
	g.Go(func() (err error) {
		obs.Inits, err = r.refreshInits(ctx, obs.Inits)
		return err
	})
	for i := range obs.Replicas {
		rep := &obs.Replicas[i]
		g.Go(func() error {
			if podman && rep.State == plan.StateRunning && !inspected[rep.ID] {
				return r.fillFromInspect(ctx, rep, opts)
			}
			if opts.Timings {
				if err := r.fillReadySince(ctx, rep); err != nil {
					return err
				}
			}
			if !rep.Ready() && !inspected[rep.ID] {
				return r.fillNotReady(ctx, rep, opts.Logs)
			}
			return nil
		})
	}
	if err := errors.Join(g.Wait(), vols.Wait()); err != nil {
		return plan.Observed{}, fmt.Errorf("observe set %s: %w", set, err)
	}
	obs.Volumes = volumes
	if len(watched) > 0 {
		r.died.Answered(set, mark)
	}
	slices.SortFunc(obs.Replicas, func(a, b plan.Replica) int {
		return cmp.Or(cmp.Compare(a.Ordinal, b.Ordinal), cmp.Compare(a.Name, b.Name))
	})
	slices.SortFunc(obs.Foreign, func(a, b plan.Foreign) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(obs.Inits, func(a, b plan.InitContainer) int {
		return cmp.Or(cmp.Compare(a.Ordinal, b.Ordinal), cmp.Compare(a.Name, b.Name))
	})
	return obs, nil
}

// fromInspect takes the state and health of the replica with c's ID from c,
// an inspect made beside the list, which can lag behind a die event. It
// reports whether the replica's NotReady is filled from c as well (a replica
// that is not ready, when no logs are asked for).
func fromInspect(replicas []plan.Replica, c container.InspectResponse, logs bool) bool {
	i := slices.IndexFunc(replicas, func(r plan.Replica) bool { return r.ID == c.ID })
	if i < 0 || c.State == nil {
		return false
	}
	rep := &replicas[i]
	rep.State = string(c.State.Status)
	rep.Health = inspectedHealth(c)
	if rep.State != plan.StateRunning {
		rep.Networks = nil // a stopped container has no endpoints to judge by
	}
	if rep.State == plan.StateRunning && rep.Health == plan.HealthStarting {
		rep.Healthcheck, rep.StartedAt = inspectedHealthcheck(c), startedAt(c)
	}
	if rep.Ready() || logs {
		return false
	}
	rep.NotReady = notReadyDetail(c)
	return true
}

func classify(obs *plan.Observed, set string, c container.Summary) {
	name := primaryName(c.Names)
	_, job := c.Labels[plan.LabelJob]
	ours := belongs(c.Labels, set)
	if !ours || job {
		if foreign(set, name) || ours {
			obs.Foreign = append(obs.Foreign, plan.Foreign{ID: c.ID, Name: name, Owner: c.Labels[plan.LabelSet], Job: job})
		}
		return
	}
	if _, ok := c.Labels[plan.LabelInit]; ok {
		obs.Inits = append(obs.Inits, toInit(set, name, c))
		return
	}
	ord, ok := ordinalLabel(c.Labels)
	if !ok {
		if ord, ok = plan.ParseReplicaName(set, name); !ok {
			ord = -1
		}
	}
	obs.Replicas = append(obs.Replicas, plan.Replica{
		ID:       c.ID,
		Name:     name,
		Ordinal:  ord,
		Revision: c.Labels[plan.LabelRevision],
		State:    string(c.State),
		Health:   summaryHealth(c),
		Created:  time.Unix(c.Created, 0),
		Owner:    plan.OwnerOf(c.Labels),
		Networks: attached(c),
	})
}

// attached names the networks a running container has an endpoint on, sorted
// (see engine.Replica.Networks); nil for a container that is not running (it
// has no endpoints to judge by) or whose networks the engine did not list.
func attached(c container.Summary) []string {
	if c.State != container.StateRunning || c.NetworkSettings == nil {
		return nil
	}
	out := make([]string, 0, len(c.NetworkSettings.Networks))
	for name := range c.NetworkSettings.Networks {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// summaryHealth uses Summary.Health where the engine sends it (API 1.52+) and
// otherwise Docker's Status text, e.g. "Up 2 seconds (healthy)". Podman's
// Status carries no health: its replicas' health comes from inspect
// (fillFromInspect), never from this "no health" answer.
func summaryHealth(c container.Summary) string {
	if c.Health != nil && c.Health.Status != "" {
		if c.Health.Status == container.NoHealthcheck {
			return plan.HealthNone
		}
		return string(c.Health.Status)
	}
	return healthFromStatus(c.Status)
}

func healthFromStatus(status string) string {
	switch {
	case strings.Contains(status, "(healthy)"):
		return plan.HealthHealthy
	case strings.Contains(status, "(unhealthy)"):
		return plan.HealthUnhealthy
	case strings.Contains(status, "(health: starting)"):
		return plan.HealthStarting
	}
	return plan.HealthNone
}

// listContainers lists the set's containers (by label: a replica renamed by
// hand is still one) and the containers named <set>-<digits>… (a foreign one
// holding a replica's name), each once. Not every container of the engine: a
// daemon keeping many sets would decode them all on every pass.
func (r *Runtime) listContainers(ctx context.Context, set string) ([]container.Summary, error) {
	filters := []client.Filters{
		make(client.Filters).Add("label", plan.LabelSet+"="+set),
		make(client.Filters).Add("name", "^/?"+regexp.QuoteMeta(set)+"-[0-9]"),
	}
	lists := make([][]container.Summary, len(filters))
	g := errgroup.Group{}
	for i, f := range filters {
		g.Go(func() error {
			res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
			lists[i] = res.Items
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := lists[0]
	for _, c := range lists[1] {
		if !slices.ContainsFunc(out, func(o container.Summary) bool { return o.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (r *Runtime) listVolumes(ctx context.Context, set string) ([]plan.Volume, error) {
	f := make(client.Filters).Add("label", plan.LabelSet+"="+set)
	res, err := r.cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list volumes: %w", err)
	}
	out := make([]plan.Volume, 0, len(res.Items))
	for _, v := range res.Items {
		if belongs(v.Labels, set) {
			out = append(out, toVolume(v))
		}
	}
	slices.SortFunc(out, func(a, b plan.Volume) int {
		return cmp.Or(cmp.Compare(a.Claim, b.Claim), cmp.Compare(a.Ordinal, b.Ordinal), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// toVolume maps a Docker volume; an ordinal label that does not parse gives -1.
func toVolume(v volume.Volume) plan.Volume {
	ord, ok := ordinalLabel(v.Labels)
	if !ok {
		ord = -1
	}
	return plan.Volume{Name: v.Name, Claim: v.Labels[plan.LabelClaim], Ordinal: ord, Created: volumeCreated(v), Owner: plan.OwnerOf(v.Labels)}
}
