package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

// Render turns a revision (its name and spec) into the container of one ordinal: names, labels,
// aliases, the OSTSET_* environment, per-ordinal volumes and ports. Templates
// are expanded with set as it is now ({{.Replicas}}, {{.Peers}}): a replica
// keeps the values it was created with, since scaling recreates nothing.
func Render(set config.Set, revision string, spec config.RevisionSpec, ordinal int) (ReplicaSpec, error) {
	name := ReplicaName(set.Name, ordinal)
	t, err := config.Expand(spec.Template, set.ReplicaVars(spec.ServiceName, ordinal))
	if err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: %w", name, err)
	}
	r := ReplicaSpec{
		Set:         set.Name,
		Name:        name,
		Ordinal:     ordinal,
		Revision:    revision,
		Image:       spec.ImageID,
		Entrypoint:  t.Command,
		Cmd:         t.Args,
		Env:         replicaEnv(t.Env, set.Name, ordinal, name, spec.ServiceName),
		EnvRefs:     t.EnvRefs,
		WorkingDir:  t.WorkingDir,
		User:        t.User,
		Labels:      replicaLabels(t.Labels, set.Name, ordinal, revision),
		Network:     spec.Network,
		Ports:       replicaPorts(t.Ports, ordinal),
		Healthcheck: healthcheck(t.Healthcheck),
		Mounts:      userMounts(t.VolumeMounts),
		Restart:     t.RestartPolicy,
		StopTimeout: set.GracePeriod(),
	}
	for _, p := range []*config.Healthcheck{t.Startup, t.Liveness} {
		if p != nil {
			r.OwnProbes = append(r.OwnProbes, p.Test)
		}
	}
	cluster, domain := clusterNames(set, spec, name)
	r.Domainname = domain
	r.Aliases, r.OtherNetworks = networkJoins(spec, append(aliases(name, spec.ServiceName, t.Labels, ordinal), cluster...))
	addresses(&r, spec)
	if t.Lifecycle != nil {
		r.Hooks = *t.Lifecycle
	}
	for _, c := range spec.VolumeClaimTemplates {
		vol := volumes.Name(c.Name, set.Name, ordinal)
		owner, err := volumes.RootOwner(c)
		if err != nil {
			return ReplicaSpec{}, fmt.Errorf("%s: %w", name, err)
		}
		r.Volumes = append(r.Volumes, VolumeSpec{Name: vol, Driver: c.Driver, DriverOpts: c.DriverOpts, Labels: map[string]string{
			LabelSet: set.Name, LabelOrdinal: strconv.Itoa(ordinal), LabelClaim: c.Name,
		}, MountPath: c.MountPath, RootOwner: owner, NoCopy: c.NoCopy})
		r.Mounts = append(r.Mounts, Mount{Type: "volume", Source: vol, Target: c.MountPath})
	}
	if r.NanoCPUs, err = parseOptional(t.Resources.CPUs, config.ParseCPUs); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: resources.cpus: %w", name, err)
	}
	if r.MemoryBytes, err = parseOptional(t.Resources.Memory, config.ParseMemory); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: resources.memory: %w", name, err)
	}
	if r.MemoryReservation, r.CPUShares, err = reservations(t.Resources.Reservations); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: resources.reservations: %w", name, err)
	}
	if r.ContainerSettings, err = containerSettings(t); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// aliases are a replica's DNS names; a set mapped from a compose service
// also answers to its service's per-ordinal names ("db-0", "db-0.db") and
// to the service's network aliases.
func aliases(name, service string, labels map[string]string, ordinal int) []string {
	out := []string{name, name + "." + service, service}
	if svc := labels[config.LabelComposeService]; svc != "" && ReplicaName(svc, ordinal) != name {
		out = append(out, ReplicaName(svc, ordinal), ReplicaName(svc, ordinal)+"."+service)
	}
	if extra := labels[config.LabelComposeAliases]; extra != "" {
		out = append(out, strings.Split(extra, ",")...)
	}
	return out
}

// networkJoins gives a replica its DNS names on every network of the
// revision, each network's own aliases added: the aliases on the first
// network, and the other networks to join.
func networkJoins(spec config.RevisionSpec, names []string) (first []string, others []NetworkJoin) {
	own := map[string][]string{}
	for _, n := range spec.Networks {
		own[n.Name] = n.Aliases
	}
	nets := spec.NetworkNames()
	for _, n := range nets[1:] {
		others = append(others, NetworkJoin{Name: n, Aliases: append(slices.Clone(names), own[n]...)})
	}
	return append(names, own[nets[0]]...), others
}

func replicaEnv(env map[string]string, set string, ordinal int, name, service string) []string {
	all := maps.Clone(env)
	if all == nil {
		all = map[string]string{}
	}
	all["OSTSET_SET"] = set
	all["OSTSET_ORDINAL"] = strconv.Itoa(ordinal)
	all["OSTSET_NAME"] = name
	all["OSTSET_SERVICE"] = service
	out := make([]string, 0, len(all))
	for _, k := range slices.Sorted(maps.Keys(all)) {
		out = append(out, k+"="+all[k])
	}
	return out
}

func replicaLabels(user map[string]string, set string, ordinal int, revision string) map[string]string {
	l := maps.Clone(user)
	if l == nil {
		l = map[string]string{}
	}
	l[LabelSet] = set
	l[LabelOrdinal] = strconv.Itoa(ordinal)
	l[LabelRevision] = revision
	return l
}

// replicaPorts publishes ordinal i on hostPort+i, so replicas never collide and a
// moved ordinal range keeps each replica's port.
func replicaPorts(ports []config.Port, ordinal int) []PortBinding {
	var out []PortBinding
	for _, p := range ports {
		b := PortBinding{ContainerPort: p.ContainerPort, HostIP: p.HostIP, Protocol: p.Protocol}
		if p.HostPort != 0 {
			b.HostPort = p.HostPort + ordinal
		}
		out = append(out, b)
	}
	return out
}

func healthcheck(h *config.Healthcheck) *Healthcheck {
	if h == nil {
		return nil
	}
	return &Healthcheck{
		Test:          h.Test,
		Interval:      time.Duration(h.Interval),
		Timeout:       time.Duration(h.Timeout),
		Retries:       h.Retries,
		StartPeriod:   time.Duration(h.StartPeriod),
		StartInterval: time.Duration(h.StartInterval),
	}
}

// userMounts: a source that is a path is a bind mount, anything else a shared named volume.
func userMounts(ms []config.VolumeMount) []Mount {
	var out []Mount
	for _, m := range ms {
		typ := "volume"
		if strings.HasPrefix(m.Source, "/") || strings.HasPrefix(m.Source, ".") {
			typ = "bind"
		}
		out = append(out, Mount{Type: typ, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	return out
}

func parseOptional(s string, parse func(string) (int64, error)) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return parse(s)
}

// reservations renders Kubernetes' requests as Docker's: memory as the
// memory reservation, CPUs as CPU shares, 1024 a CPU as the kubelet gives
// them (at least 2, the kernel's least).
func reservations(r *config.Resources) (memory, shares int64, err error) {
	if r == nil {
		return 0, 0, nil
	}
	if memory, err = parseOptional(r.Memory, config.ParseMemory); err != nil {
		return 0, 0, err
	}
	nano, err := parseOptional(r.CPUs, config.ParseCPUs)
	if err != nil || nano == 0 {
		return memory, 0, err
	}
	return memory, max(nano*1024/1_000_000_000, 2), nil
}
