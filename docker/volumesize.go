package docker

import (
	"context"
	"fmt"
	"slices"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// VolumeSizes returns the size on disk of each volume Docker can measure
// (the local driver), by name, as docker system df -v reports it. The engine
// walks every volume to answer, so this is for a command a user runs, not
// for a pass.
func (r *Runtime) VolumeSizes(ctx context.Context) (map[string]int64, error) {
	res, err := r.cli.DiskUsage(ctx, client.DiskUsageOptions{Volumes: true, Verbose: true})
	if err != nil {
		return nil, fmt.Errorf("volume sizes: %w", err)
	}
	out := map[string]int64{}
	for _, v := range res.Volumes.Items {
		if v.UsageData != nil && v.UsageData.Size >= 0 {
			out[v.Name] = v.UsageData.Size
		}
	}
	return out, nil
}

// VolumeSets returns the names of the sets that have volumes (by their
// io.ostset.set label), sorted: also those of sets deleted with their volumes
// kept, which the state directory no longer lists.
func (r *Runtime) VolumeSets(ctx context.Context) ([]string, error) {
	res, err := r.cli.VolumeList(ctx, client.VolumeListOptions{Filters: make(client.Filters).Add("label", plan.LabelSet)})
	if err != nil {
		return nil, fmt.Errorf("list volumes: %w", err)
	}
	var sets []string
	for _, v := range res.Items {
		if set := v.Labels[plan.LabelSet]; set != "" && !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	slices.Sort(sets)
	return sets, nil
}
