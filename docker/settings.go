package docker

import (
	"github.com/moby/moby/api/types/container"

	"github.com/ostset/ostset/engine/plan"
)

// applySettings maps a replica's container settings onto the create call.
// Every field used here is honoured by API 1.40 and later, the oldest the
// client speaks, so none is dropped silently. tmpfs goes in HostConfig.Tmpfs
// on purpose: a tmpfs mount in HostConfig.Mounts takes arbitrary options
// (noexec, uid=…) only from API 1.46 on, and older engines drop them silently.
func applySettings(cfg *container.Config, host *container.HostConfig, s plan.ContainerSettings) {
	cfg.StopSignal = s.StopSignal
	host.ShmSize = s.ShmSize
	for _, u := range s.Ulimits {
		host.Ulimits = append(host.Ulimits, &container.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
	}
	host.Sysctls = s.Sysctls
	host.Tmpfs = s.Tmpfs
	host.CapAdd = s.CapAdd
	host.CapDrop = s.CapDrop
	host.Init = s.Init
	host.ExtraHosts = s.ExtraHosts
	host.Runtime = s.Runtime
	host.PidMode = container.PidMode(s.PidMode)
	cfg.OpenStdin, cfg.Tty = s.OpenStdin, s.Tty
}
