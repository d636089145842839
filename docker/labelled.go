package docker

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// Labelled lists the compose jobs' containers (io.ostset.job) and the
// networks ostset created (io.ostset.managed=true) that carry the label
// key=value: what 'ostset down -p' removes of a project beside its sets.
func (r *Runtime) Labelled(ctx context.Context, key, value string) (engine.Labelled, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	var out engine.Labelled
	label := key + "=" + value
	cs, err := r.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", label, plan.LabelJob)})
	if err != nil {
		return out, fmt.Errorf("list the containers labelled %s: %w", label, err)
	}
	for _, c := range cs.Items {
		if c.Labels[key] == value {
			out.Jobs = append(out.Jobs, engine.JobContainer{Set: c.Labels[plan.LabelSet], ID: c.ID, Name: primaryName(c.Names), Owner: plan.OwnerOf(c.Labels)})
		}
	}
	ns, err := r.cli.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("label", label, plan.LabelManaged+"=true")})
	if err != nil {
		return out, fmt.Errorf("list the networks labelled %s: %w", label, err)
	}
	for _, n := range ns.Items {
		if n.Labels[key] == value && n.Labels[plan.LabelManaged] == "true" && !slices.Contains(out.Networks, n.Name) {
			out.Networks = append(out.Networks, n.Name)
		}
	}
	slices.SortFunc(out.Jobs, func(a, b engine.JobContainer) int { return cmp.Compare(a.Name, b.Name) })
	slices.Sort(out.Networks)
	return out, nil
}
