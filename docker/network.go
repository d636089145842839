package docker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/docker/containerspec"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// EnsureNetwork returns the ID of the network called name, creating a bridge
// labelled io.ostset.managed=true and labels if there is none. Docker does not refuse
// duplicate names at API 1.41 (the client no longer sends CheckDuplicate), so the
// caller must hold the lock that serialises EnsureNetwork calls for a name; two
// networks with the name are repaired if they are all ostset's and at most one
// is in use (see dedupNetworks), and reported as ambiguous otherwise.
//
// The ID found is kept for the life of the Runtime: a long-running controller
// would otherwise list networks before every create. A network removed since
// (by another process's down, or by hand once nothing was attached) makes the
// next create or start with its ID fail, which drops the cached ID (see
// forgetNetwork), so the retry finds or makes the network again.
func (r *Runtime) EnsureNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	if plan.NetworkMode(name) {
		return name, nil // host, none: a mode of the container, not a network to make
	}
	if id, ok := r.networks.Load(name); ok {
		return id.(string), nil
	}
	id, err := r.ensureNetwork(ctx, name, labels)
	if err == nil {
		r.networks.Store(name, id)
	}
	return id, err
}

// withManaged is labels with io.ostset.managed=true, the mark of a network
// ostset created (and so may remove).
func withManaged(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[plan.LabelManaged] = "true"
	return out
}

// forgetNetwork drops a cached network ID after a create or start failed with it.
func (r *Runtime) forgetNetwork(name string) { r.networks.Delete(name) }

func (r *Runtime) ensureNetwork(ctx context.Context, name string, labels map[string]string) (string, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	n, found, err := r.findNetwork(ctx, name)
	if err != nil || found {
		return n.ID, err
	}
	ipam, v6, err := containerspec.IPAM(labels[plan.LabelIPAM])
	if err != nil {
		return "", fmt.Errorf("create network %s: %w", name, err)
	}
	opts := client.NetworkCreateOptions{Driver: "bridge", Labels: withManaged(labels), IPAM: ipam}
	if v6 {
		opts.EnableIPv6 = &v6
	}
	res, err := r.cli.NetworkCreate(ctx, name, opts)
	if err != nil {
		return "", classifyNetworkCreate(name, fmt.Errorf("create network %s: %w", name, err))
	}
	return res.ID, nil
}

// findNetwork is the one lookup of a network by name (EnsureNetwork,
// RemoveNetwork): the network called exactly name, with duplicates repaired
// (see dedupNetworks), and whether there is one.
func (r *Runtime) findNetwork(ctx context.Context, name string) (network.Summary, bool, error) {
	found, err := r.networksNamed(ctx, name)
	if err != nil || len(found) == 0 {
		return network.Summary{}, false, err
	}
	if len(found) == 1 {
		return found[0], true, nil
	}
	id, err := r.dedupNetworks(ctx, name, found)
	if err != nil {
		return network.Summary{}, false, err
	}
	i := slices.IndexFunc(found, func(n network.Summary) bool { return n.ID == id })
	return found[i], true, nil
}

// dedupNetworks repairs two or more networks called name that are all
// ostset's (labelled io.ostset.managed=true), and returns the one kept. They
// come from a create whose process was killed while the engine was still
// making the network: the lock serialising creates was released with the
// process, and the next one listed the networks before the first was there.
// The one kept is the one containers (of any state) are attached to, or the oldest if none
// has any; the others, empty, are removed. Networks not all ostset's, or more
// than one in use, are ambiguous: which one replicas should join is then a
// person's call.
func (r *Runtime) dedupNetworks(ctx context.Context, name string, found []network.Summary) (string, error) {
	for _, n := range found {
		if n.Labels[plan.LabelManaged] != "true" {
			return "", ambiguous(name, found)
		}
	}
	used, err := r.networksInUse(ctx, name)
	if err != nil {
		return "", err
	}
	keep, inUse := -1, 0
	for i, n := range found {
		if used.uses(n) {
			keep, inUse = i, inUse+1
		}
	}
	switch {
	case inUse > 1:
		return "", ambiguous(name, found)
	case keep < 0:
		keep = 0
		for i, n := range found {
			if n.Created.Before(found[keep].Created) || n.Created.Equal(found[keep].Created) && n.ID < found[keep].ID {
				keep = i
			}
		}
	}
	for i, n := range found {
		if i == keep {
			continue
		}
		if _, err := r.cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			return "", fmt.Errorf("remove network %s (%s), a duplicate of %s: %w", name, n.ID, found[keep].ID, err)
		}
	}
	return found[keep].ID, nil
}

// RemoveNetwork removes the network called name if ostset created it (label
// io.ostset.managed=true) and no container of any state uses it. It reports
// whether it did.
func (r *Runtime) RemoveNetwork(ctx context.Context, name string) (bool, error) {
	r.forgetNetwork(name)
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	n, found, err := r.findNetwork(ctx, name)
	if err != nil || !found || n.Labels[plan.LabelManaged] != "true" {
		return false, err
	}
	if used, err := r.networksInUse(ctx, name); err != nil || used.uses(n) {
		return false, err
	}
	if _, err := r.cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
		switch {
		case cerrdefs.IsNotFound(err):
			return false, nil
		case strings.Contains(err.Error(), "has active endpoints"):
			return r.activeEndpoints(ctx, n, err)
		}
		return false, fmt.Errorf("remove network %s: %w", name, err)
	}
	return true, nil
}

// activeEndpoints sorts out a removal refused for active endpoints: a container
// that uses the network since it was looked at means the network is in use
// (not removed, no error); none means stale endpoints the engine kept, an
// *engine.StaleEndpointsError.
func (r *Runtime) activeEndpoints(ctx context.Context, n network.Summary, refused error) (bool, error) {
	used, err := r.networksInUse(ctx, n.Name)
	if err != nil || used.uses(n) {
		return false, err
	}
	return false, &engine.StaleEndpointsError{Network: n.Name, ID: n.ID, Err: refused}
}

// NetworkExists reports whether a network called name exists, changing
// nothing (ostset diff).
func (r *Runtime) NetworkExists(ctx context.Context, name string) (bool, error) {
	found, err := r.networksNamed(ctx, name)
	return len(found) > 0, err
}

// networksNamed lists the networks whose name is exactly name (Docker's name
// filter matches substrings).
func (r *Runtime) networksNamed(ctx context.Context, name string) ([]network.Summary, error) {
	if name == "" {
		return nil, fmt.Errorf("network name is empty")
	}
	f := make(client.Filters).Add("name", name)
	res, err := r.cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list networks named %s: %w", name, err)
	}
	var out []network.Summary
	for _, n := range res.Items {
		if n.Name == name {
			out = append(out, n)
		}
	}
	return out, nil
}

// inUse holds the networks containers of any state use, by ID, and by name
// for a container that names its network and was never started.
type inUse map[string]bool

func (u inUse) uses(n network.Summary) bool { return u[n.ID] || u[n.Name] }

// networksInUse returns the networks containers of any state use: the one
// lookup of whether a network is in use, for a removal and for the repair of
// duplicates. A created container's network is not resolved yet, so it counts
// by its HostConfig.NetworkMode. Not NetworkInspect, nor the network filter:
// both see only containers that have joined the network by starting, and
// ostset creates replicas before it starts them.
func (r *Runtime) networksInUse(ctx context.Context, name string) (inUse, error) {
	res, err := r.cli.ContainerList(ctx, client.ContainerListOptions{All: true})
	if err != nil {
		return nil, fmt.Errorf("list containers using network %s: %w", name, err)
	}
	used := inUse{}
	for _, c := range res.Items {
		joined := false
		if c.NetworkSettings != nil {
			for _, n := range c.NetworkSettings.Networks {
				if n != nil && n.NetworkID != "" {
					used[n.NetworkID], joined = true, true
				}
			}
		}
		if !joined {
			used[c.HostConfig.NetworkMode] = true
		}
	}
	return used, nil
}

func ambiguous(name string, found []network.Summary) error {
	ids := make([]string, len(found))
	for i, n := range found {
		ids[i] = n.ID
	}
	return fmt.Errorf("network name %s is ambiguous: %d networks have it (IDs %s); remove all but one with docker network rm <ID>",
		name, len(found), strings.Join(ids, ", "))
}
