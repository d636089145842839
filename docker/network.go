package docker

import (
	"context"
	"fmt"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
)

// EnsureNetwork returns the ID of the network called name, creating a bridge
// labelled io.ostset.managed=true if there is none. Docker does not refuse
// duplicate names at API 1.41 (the client no longer sends CheckDuplicate), so the
// caller must hold the lock that serialises EnsureNetwork calls for a name; two
// networks with the name are reported as ambiguous, never guessed between.
//
// The ID found is kept for the life of the Runtime: a long-running controller
// would otherwise list networks before every create. A network that is gone
// anyway (it can only be removed while no container is attached) makes the
// next create fail, which drops the cached ID (see forgetNetwork).
func (r *Runtime) EnsureNetwork(ctx context.Context, name string) (string, error) {
	if id, ok := r.networks.Load(name); ok {
		return id.(string), nil
	}
	id, err := r.ensureNetwork(ctx, name)
	if err == nil {
		r.networks.Store(name, id)
	}
	return id, err
}

// forgetNetwork drops a cached network ID after a create failed with it.
func (r *Runtime) forgetNetwork(name string) { r.networks.Delete(name) }

func (r *Runtime) ensureNetwork(ctx context.Context, name string) (string, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	found, err := r.networksNamed(ctx, name)
	if err != nil {
		return "", err
	}
	switch len(found) {
	case 0:
		res, err := r.cli.NetworkCreate(ctx, name, client.NetworkCreateOptions{
			Driver: "bridge",
			Labels: map[string]string{engine.LabelManaged: "true"},
		})
		if err != nil {
			return "", fmt.Errorf("create network %s: %w", name, err)
		}
		return res.ID, nil
	case 1:
		return found[0].ID, nil
	}
	return "", ambiguous(name, found)
}

// RemoveNetwork removes the network called name if ostset created it (label
// io.ostset.managed=true) and no container is attached. It reports whether it did.
func (r *Runtime) RemoveNetwork(ctx context.Context, name string) (bool, error) {
	r.forgetNetwork(name)
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	found, err := r.networksNamed(ctx, name)
	if err != nil {
		return false, err
	}
	switch {
	case len(found) == 0:
		return false, nil
	case len(found) > 1:
		return false, ambiguous(name, found)
	case found[0].Labels[engine.LabelManaged] != "true":
		return false, nil
	}
	id := found[0].ID
	res, err := r.cli.NetworkInspect(ctx, id, client.NetworkInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect network %s: %w", name, err)
	}
	if len(res.Network.Containers) > 0 {
		return false, nil
	}
	if _, err := r.cli.NetworkRemove(ctx, id, client.NetworkRemoveOptions{}); err != nil {
		switch {
		case cerrdefs.IsNotFound(err):
			return false, nil
		case strings.Contains(err.Error(), "has active endpoints"):
			return r.activeEndpoints(ctx, name, id, err)
		}
		return false, fmt.Errorf("remove network %s: %w", name, err)
	}
	return true, nil
}

// activeEndpoints sorts out a removal refused for active endpoints: a container
// attached since the inspect means the network is in use (not removed, no
// error); none attached means stale endpoints the engine kept, an
// *engine.StaleEndpointsError.
func (r *Runtime) activeEndpoints(ctx context.Context, name, id string, refused error) (bool, error) {
	res, err := r.cli.NetworkInspect(ctx, id, client.NetworkInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect network %s: %w", name, err)
	}
	if len(res.Network.Containers) > 0 {
		return false, nil
	}
	return false, &engine.StaleEndpointsError{Network: name, ID: id, Err: refused}
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

func ambiguous(name string, found []network.Summary) error {
	ids := make([]string, len(found))
	for i, n := range found {
		ids[i] = n.ID
	}
	return fmt.Errorf("network name %s is ambiguous: %d networks have it (IDs %s); remove all but one with docker network rm <ID>",
		name, len(found), strings.Join(ids, ", "))
}
