package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// StatsSample is one reading of a container's resource use, as docker stats
// takes it: CPU as cumulative counters (a share needs two samples), memory
// as used now, page cache left out.
type StatsSample struct {
	CPU, System uint64 // the container's and the host's CPU time, ns
	OnlineCPUs  uint32
	Memory      uint64
	At          time.Time
}

// Stats reads one sample of a container of the set (Docker's one-shot stats:
// no second sample, so it answers at once).
func (r *Runtime) Stats(ctx context.Context, set, id string) (StatsSample, error) {
	c, err := r.ownContainer(ctx, "read stats of", set, id)
	if err != nil {
		return StatsSample{}, err
	}
	res, err := r.cli.ContainerStats(ctx, c.ID, client.ContainerStatsOptions{})
	if err != nil {
		return StatsSample{}, fmt.Errorf("stats of %s: %w", containerName(c, id), err)
	}
	defer func() { _ = res.Body.Close() }()
	var s container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		return StatsSample{}, fmt.Errorf("stats of %s: %w", containerName(c, id), err)
	}
	mem := s.MemoryStats.Usage
	for _, cache := range []string{"inactive_file", "total_inactive_file"} { // cgroup v2, v1
		if v, ok := s.MemoryStats.Stats[cache]; ok && v < mem {
			mem -= v
			break
		}
	}
	return StatsSample{CPU: s.CPUStats.CPUUsage.TotalUsage, System: s.CPUStats.SystemUsage,
		OnlineCPUs: s.CPUStats.OnlineCPUs, Memory: mem, At: s.Read}, nil
}
