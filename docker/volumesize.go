package docker

import (
	"context"
	"fmt"

	"github.com/moby/moby/client"
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
