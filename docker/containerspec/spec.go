// Package containerspec maps a replica spec (engine/plan) onto the engine's
// container create call: labels, health, ports, restart policy, mounts. It is
// pure: it calls no engine.
package containerspec

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ostset/ostset/engine/plan"
)

// CreateOptions maps a replica spec onto the create call, except its network
// (see Attach). It validates the spec before anything is created.
func CreateOptions(spec plan.ReplicaSpec) (client.ContainerCreateOptions, error) {
	if spec.Name == "" || spec.Image == "" {
		// Docker would pick a random name; ostset finds replicas by name.
		return client.ContainerCreateOptions{}, fmt.Errorf("replica %q of set %s: name and image are required", spec.Name, spec.Set)
	}
	if len(spec.EnvRefs) > 0 {
		// The controller reads their values; a replica created without them
		// would start with its Secret's variables missing.
		return client.ContainerCreateOptions{}, fmt.Errorf("replica %q of set %s: the variables from Secrets and ConfigMaps were not resolved", spec.Name, spec.Set)
	}
	labels, err := replicaLabels(spec)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	if hooks := plan.HooksLabel(&spec.Hooks); hooks != "" {
		labels[plan.LabelHooks] = hooks // what its stop runs (the docker runtime's RemoveReplica)
	}
	exposed, bindings, err := PortMaps(spec.Ports)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	restart, err := RestartPolicy(spec.Restart)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	mounts, err := mountList(spec.Mounts)
	if err != nil {
		return client.ContainerCreateOptions{}, err
	}
	if err := volumeOptions(mounts, spec); err != nil {
		return client.ContainerCreateOptions{}, err
	}
	stop := Seconds(spec.StopTimeout)
	cfg := &container.Config{
		Hostname:     cmp.Or(spec.Hostname, spec.Name),
		Domainname:   spec.Domainname,
		User:         spec.User,
		ExposedPorts: exposed,
		Env:          spec.Env,
		Cmd:          spec.Cmd,
		Healthcheck:  healthConfig(spec.Healthcheck),
		Image:        spec.Image,
		WorkingDir:   spec.WorkingDir,
		Entrypoint:   spec.Entrypoint,
		Labels:       labels,
		StopTimeout:  &stop,
	}
	host := &container.HostConfig{
		PortBindings:  bindings,
		RestartPolicy: restart,
		Mounts:        mounts,
		Resources: container.Resources{NanoCPUs: spec.NanoCPUs, Memory: spec.MemoryBytes,
			MemoryReservation: spec.MemoryReservation, CPUShares: spec.CPUShares},
	}
	applySettings(cfg, host, spec.ContainerSettings)
	opts := client.ContainerCreateOptions{Name: spec.Name, Config: cfg, HostConfig: host}
	if spec.Platform != "" {
		// The engine refuses an image of another platform (API 1.41).
		parts := strings.SplitN(spec.Platform, "/", 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return opts, fmt.Errorf("replica %s: platform %q is not OS/ARCH[/VARIANT]", spec.Name, spec.Platform)
		}
		opts.Platform = &ocispec.Platform{OS: parts[0], Architecture: parts[1]}
		if len(parts) == 3 {
			opts.Platform.Variant = parts[2]
		}
	}
	return opts, nil
}

// Attach joins the container to the network by ID (a name can be ambiguous at API
// 1.41) with the endpoint (see Endpoint). The endpoint config keyed by the ID is
// stored by the engine under the network's name, as inspect shows.
func Attach(opts *client.ContainerCreateOptions, networkID string, endpoint *network.EndpointSettings) {
	if endpoint == nil {
		endpoint = &network.EndpointSettings{} // the engine refuses a nil one
	}
	opts.HostConfig.NetworkMode = container.NetworkMode(networkID)
	opts.NetworkingConfig = &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		networkID: endpoint,
	}}
}

// replicaLabels are the spec's labels with the set, ordinal and revision labels,
// which must agree with the spec's fields if the caller set them.
func replicaLabels(spec plan.ReplicaSpec) (map[string]string, error) {
	labels, err := WithLabel(spec.Labels, plan.LabelSet, spec.Set)
	if err == nil {
		labels, err = WithLabel(labels, plan.LabelOrdinal, strconv.Itoa(spec.Ordinal))
	}
	if err == nil && spec.Revision != "" {
		labels, err = WithLabel(labels, plan.LabelRevision, spec.Revision)
	}
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", spec.Name, err)
	}
	return labels, nil
}

// healthConfig maps the healthcheck; nil keeps the image's. Test ["NONE"] disables it.
func healthConfig(h *plan.Healthcheck) *container.HealthConfig {
	if h == nil {
		return nil
	}
	return &container.HealthConfig{
		Test:          h.Test,
		Interval:      h.Interval,
		Timeout:       h.Timeout,
		StartPeriod:   h.StartPeriod,
		StartInterval: h.StartInterval,
		Retries:       h.Retries,
	}
}

// PortMaps exposes every port and publishes those with a host port.
func PortMaps(ports []plan.PortBinding) (network.PortSet, network.PortMap, error) {
	if len(ports) == 0 {
		return nil, nil, nil
	}
	exposed, bindings := network.PortSet{}, network.PortMap{}
	for _, p := range ports {
		proto := strings.ToLower(p.Protocol)
		if proto == "" {
			proto = "tcp"
		}
		if p.ContainerPort <= 0 || p.ContainerPort > math.MaxUint16 ||
			(proto != string(network.TCP) && proto != string(network.UDP) && proto != string(network.SCTP)) {
			return nil, nil, fmt.Errorf("container port %d/%s is invalid", p.ContainerPort, proto)
		}
		port, _ := network.PortFrom(uint16(p.ContainerPort), network.IPProtocol(proto))
		exposed[port] = struct{}{}
		if p.HostPort == 0 {
			continue
		}
		b, err := hostBinding(p)
		if err != nil {
			return nil, nil, err
		}
		bindings[port] = append(bindings[port], b)
	}
	return exposed, bindings, nil
}

func hostBinding(p plan.PortBinding) (network.PortBinding, error) {
	if p.HostPort < 0 || p.HostPort > math.MaxUint16 {
		return network.PortBinding{}, fmt.Errorf("host port %d is invalid", p.HostPort)
	}
	b := network.PortBinding{HostPort: strconv.Itoa(p.HostPort)}
	if p.HostIP != "" {
		ip, err := netip.ParseAddr(p.HostIP)
		if err != nil {
			return network.PortBinding{}, fmt.Errorf("host IP %q of port %d: %w", p.HostIP, p.ContainerPort, err)
		}
		b.HostIP = ip
	}
	return b, nil
}

// RestartPolicy parses no, always, unless-stopped, on-failure and on-failure:N.
func RestartPolicy(s string) (container.RestartPolicy, error) {
	name, count, hasCount := strings.Cut(s, ":")
	p := container.RestartPolicy{Name: container.RestartPolicyMode(name)}
	switch p.Name {
	case "", container.RestartPolicyDisabled, container.RestartPolicyAlways, container.RestartPolicyUnlessStopped:
		if hasCount {
			return p, fmt.Errorf("restart policy %q: only on-failure takes a retry count", s)
		}
		return p, nil
	case container.RestartPolicyOnFailure:
		if !hasCount {
			return p, nil
		}
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 {
			return p, fmt.Errorf("restart policy %q: retry count must be a non-negative integer", s)
		}
		p.MaximumRetryCount = n
		return p, nil
	}
	return p, fmt.Errorf("restart policy %q: want no, always, unless-stopped or on-failure[:N]", s)
}

// volumeOptions gives the mounts of the spec's per-ordinal volumes the labels
// and driver they are created with, so that a volume that is gone by the time
// the container is created (removed since it was observed) is created again as
// ostset would, never without its labels.
func volumeOptions(mounts []mount.Mount, spec plan.ReplicaSpec) error {
	for _, vs := range spec.Volumes {
		labels, err := WithLabel(vs.Labels, plan.LabelSet, spec.Set)
		if err != nil {
			return fmt.Errorf("volume %s: %w", vs.Name, err)
		}
		for i := range mounts {
			if mounts[i].Type == mount.TypeVolume && mounts[i].Source == vs.Name {
				opts := &mount.VolumeOptions{Labels: labels, NoCopy: vs.NoCopy}
				if vs.Driver != "" {
					opts.DriverConfig = &mount.Driver{Name: vs.Driver, Options: vs.DriverOpts}
				}
				mounts[i].VolumeOptions = opts
			}
		}
	}
	return nil
}

func mountList(ms []plan.Mount) ([]mount.Mount, error) {
	out := make([]mount.Mount, 0, len(ms))
	for _, m := range ms {
		t := mount.Type(m.Type)
		if t != mount.TypeBind && t != mount.TypeVolume {
			return nil, fmt.Errorf("mount %s: type %q, want bind or volume", m.Target, m.Type)
		}
		out = append(out, mount.Mount{Type: t, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	return out, nil
}

// Seconds rounds a duration up to whole Seconds, the unit of Docker's stop timeouts.
func Seconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// WithLabel returns a copy of labels with key=value, refusing a different value.
func WithLabel(labels map[string]string, key, value string) (map[string]string, error) {
	if v, ok := labels[key]; ok && v != value {
		return nil, fmt.Errorf("label %s is %q, want %q", key, v, value)
	}
	out := make(map[string]string, len(labels)+1)
	maps.Copy(out, labels)
	out[key] = value
	return out, nil
}

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
