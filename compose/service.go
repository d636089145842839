package compose

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// mapped are the service fields (by compose name) that map onto the set;
// any other field a service writes is listed as unmapped.
var mapped = map[string]bool{
	"name": true, "image": true, "command": true, "entrypoint": true, "environment": true,
	"env_file": true, "working_dir": true, "user": true, "labels": true, "healthcheck": true,
	"ports": true, "expose": true, "volumes": true, "networks": true, "restart": true,
	"stop_signal": true, "stop_grace_period": true, "shm_size": true, "ulimits": true,
	"sysctls": true, "tmpfs": true, "cap_add": true, "cap_drop": true, "init": true,
	"extra_hosts": true, "deploy": true, "mem_limit": true, "cpus": true, "depends_on": true,
	"build": true, "scale": true, "pull_policy": true, "profiles": true,
	"secrets": true, "configs": true,
	"container_name": true, "hostname": true, "develop": true,
	"network_mode": true, "pre_start": true, "post_start": true, "pre_stop": true, "label_file": true, "runtime": true, "platform": true, "stdin_open": true, "tty": true, "pid": true,
	"#extensions": true,
}

type mapper struct {
	p        *types.Project
	svc      types.ServiceConfig
	lines    *fieldLines
	oneShots map[string]bool
	// engineAPI: see Options.EngineAPI.
	engineAPI string
	// configDir: see Options.ConfigDir.
	configDir string

	set     config.Set
	deps    []Dep
	aliases []string
	build   *Build
	// hostPaths: see Project.HostPaths.
	hostPaths []string
	unmapped  []string
	warnings  []string
	// files are the service's secrets and configs (Project.ConfigFiles).
	files []config.ConfigFile
	// problems are errors of the file that no --lenient lets pass.
	problems []string
}

func (m *mapper) problem(path []string, format string, args ...any) {
	m.problems = append(m.problems, fmt.Sprintf("%s: services.%s.%s: ", m.lines.where(m.svc.Name, path...), m.svc.Name, strings.Join(path, "."))+fmt.Sprintf(format, args...))
}

func (m *mapper) unmap(why string, path ...string) {
	m.unmapped = append(m.unmapped, fmt.Sprintf("%s: services.%s.%s: %s", m.lines.where(m.svc.Name, path...), m.svc.Name, strings.Join(path, "."), why))
}

func (m *mapper) warn(format string, args ...any) {
	m.warnings = append(m.warnings, fmt.Sprintf("%s: services.%s: ", m.lines.where(m.svc.Name), m.svc.Name)+fmt.Sprintf(format, args...))
}

func (m *mapper) mapSet() config.Set {
	svc := m.svc
	name := SetName(m.p.Name, svc.Name)
	s := config.Set{Name: name, ServiceName: dnsLabel(svc.Name), PodManagementPolicy: config.Parallel, Source: m.lines.file(svc.Name)}
	m.set = s
	m.replicas()
	m.xostset()
	m.template()
	m.network()
	m.dependsOn()
	m.buildImage()
	m.preStart()
	m.hooks()
	m.unmappedFields()
	if m.svc.Develop != nil {
		m.warn("develop: a note for docker compose watch, not applied: ostset does not watch files (rebuild with up --build)")
	}
	return m.set
}

func (m *mapper) replicas() {
	n := 1
	switch {
	case m.svc.Deploy != nil && m.svc.Deploy.Replicas != nil:
		n = *m.svc.Deploy.Replicas
	case m.svc.Scale != nil:
		n = *m.svc.Scale
	}
	m.set.Replicas = &n
}

// xOstset is the x-ostset extension of a service: the set file's own names.
type xOstset struct {
	PodManagementPolicy                  string                       `yaml:"podManagementPolicy"`
	UpdateStrategy                       config.UpdateStrategy        `yaml:"updateStrategy"`
	MinReadySeconds                      int                          `yaml:"minReadySeconds"`
	Ordinals                             config.Ordinals              `yaml:"ordinals"`
	PersistentVolumeClaimRetentionPolicy config.RetentionPolicy       `yaml:"persistentVolumeClaimRetentionPolicy"`
	VolumeClaimTemplates                 []config.VolumeClaimTemplate `yaml:"volumeClaimTemplates"`
}

// xostset applies x-ostset. Without it a service keeps compose's behaviour:
// Parallel, no per-ordinal volumes.
func (m *mapper) xostset() {
	raw, ok := m.svc.Extensions["x-ostset"]
	if !ok {
		return
	}
	data, err := yaml.Marshal(raw)
	if err != nil {
		m.unmap(err.Error(), "x-ostset")
		return
	}
	var x xOstset
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&x); err != nil {
		m.unmap(strings.TrimPrefix(err.Error(), "yaml: "), "x-ostset")
		return
	}
	m.set.PodManagementPolicy = x.PodManagementPolicy // empty: the set file's default, OrderedReady
	m.set.UpdateStrategy = x.UpdateStrategy
	m.set.MinReadySeconds = x.MinReadySeconds
	m.set.Ordinals = x.Ordinals
	m.set.PersistentVolumeClaimRetentionPolicy = x.PersistentVolumeClaimRetentionPolicy
	m.set.VolumeClaimTemplates = x.VolumeClaimTemplates
}

func (m *mapper) template() {
	svc := m.svc
	t := &m.set.Template
	t.Image = svc.Image
	t.Command = []string(svc.Entrypoint)
	t.Args = []string(svc.Command)
	t.WorkingDir = svc.WorkingDir
	t.User = svc.User
	for k, v := range svc.Environment {
		if v != nil { // a variable named without a value and not set is left out, as in compose
			if t.Env == nil {
				t.Env = map[string]string{}
			}
			t.Env[k] = *v
		}
	}
	t.Labels = maps.Clone(map[string]string(svc.Labels))
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Labels[LabelProject] = m.p.Name
	t.Labels[LabelService] = svc.Name
	if svc.Restart != "" {
		t.RestartPolicy = svc.Restart
	}
	switch svc.PullPolicy {
	case "", types.PullPolicyMissing, types.PullPolicyIfNotPresent:
	case types.PullPolicyAlways:
		t.ImagePullPolicy = config.PullAlways
	case types.PullPolicyNever:
		t.ImagePullPolicy = config.PullNever
	case types.PullPolicyBuild:
	default:
		m.unmap(fmt.Sprintf("%q: ostset knows always, missing, never and build", svc.PullPolicy), "pull_policy")
	}
	m.healthcheck()
	m.ports()
	m.volumes()
	m.secretFiles()
	m.settings()
	m.containerLabel()
	m.resources()
}

func (m *mapper) healthcheck() {
	hc := m.svc.HealthCheck
	if hc == nil {
		return
	}
	if hc.Disable {
		m.set.Template.Healthcheck = &config.Healthcheck{Test: []string{"NONE"}}
		return
	}
	h := &config.Healthcheck{Test: []string(hc.Test)}
	if len(h.Test) > 0 && h.Test[0] == "NONE" {
		m.set.Template.Healthcheck = &config.Healthcheck{Test: []string{"NONE"}}
		return
	}
	if hc.Interval != nil {
		h.Interval = config.Duration(*hc.Interval)
	}
	if hc.Timeout != nil {
		h.Timeout = config.Duration(*hc.Timeout)
	}
	if hc.StartPeriod != nil {
		h.StartPeriod = config.Duration(*hc.StartPeriod)
	}
	if hc.Retries != nil {
		h.Retries = int(*hc.Retries)
	}
	if hc.StartInterval != nil {
		if apiAtLeast144(m.engineAPI) {
			h.StartInterval = config.Duration(*hc.StartInterval)
		} else {
			m.unmap(startIntervalWhy(m.engineAPI), "healthcheck", "start_interval")
		}
	}
	if len(h.Test) == 0 && h.Interval == 0 && h.Timeout == 0 && h.StartPeriod == 0 && h.Retries == 0 {
		return
	}
	if len(h.Test) == 0 {
		m.unmap("a healthcheck that only changes the image's timings needs its test in ostset", "healthcheck")
		return
	}
	m.set.Template.Healthcheck = h
}

func (m *mapper) ports() {
	replicas := *m.set.Replicas
	for i, p := range m.svc.Ports {
		port := config.Port{ContainerPort: int(p.Target), HostIP: p.HostIP, Protocol: p.Protocol}
		if p.Mode != "" && p.Mode != "ingress" && p.Mode != "host" {
			m.unmap(fmt.Sprintf("mode %q", p.Mode), "ports", strconv.Itoa(i))
		}
		if p.Published != "" {
			first, last, isRange := strings.Cut(p.Published, "-")
			lo, err := strconv.Atoi(first)
			if err != nil {
				m.unmap(fmt.Sprintf("published %q is not a port or a range", p.Published), "ports")
				continue
			}
			// ostset publishes ordinal i on hostPort+i: the first ordinal gets lo.
			port.HostPort = lo - m.set.Ordinals.Start
			if isRange {
				hi, err := strconv.Atoi(last)
				if err != nil || hi < lo {
					m.unmap(fmt.Sprintf("published %q is not a port range", p.Published), "ports")
					continue
				}
				if hi-lo+1 < replicas {
					m.unmap(fmt.Sprintf("the range %s has %d ports for %d replicas: one port per ordinal", p.Published, hi-lo+1, replicas), "ports")
				}
			} else if replicas > 1 {
				m.warn("ports %s:%d: with %d replicas, ordinal i publishes on %d+i (%d-%d), not one port for all", p.Published, p.Target, replicas, lo, lo, lo+replicas-1)
			}
		}
		m.set.Template.Ports = append(m.set.Template.Ports, port)
	}
	for _, e := range m.svc.Expose {
		port, proto, _ := strings.Cut(e, "/")
		n, err := strconv.Atoi(port)
		if err != nil {
			m.unmap(fmt.Sprintf("%q: a port range is not mapped", e), "expose")
			continue
		}
		if !slices.ContainsFunc(m.set.Template.Ports, func(p config.Port) bool { return p.ContainerPort == n }) {
			m.set.Template.Ports = append(m.set.Template.Ports, config.Port{ContainerPort: n, Protocol: proto})
		}
	}
}

// dataPaths are where well-known database images keep their data: a volume
// shared there by several replicas is one database written by several servers.
var dataPaths = []string{"/var/lib/postgresql/data", "/var/lib/postgresql", "/var/lib/mysql", "/data/db", "/bitnami/postgresql", "/var/lib/redis", "/var/lib/mongodb"}

func (m *mapper) volumes() {
	t := &m.set.Template
	claims := map[string]int{}
	for i, c := range m.set.VolumeClaimTemplates {
		claims[c.Name] = i
	}
	for i, v := range m.svc.Volumes {
		path := []string{"volumes", strconv.Itoa(i)}
		switch v.Type {
		case types.VolumeTypeBind:
			t.VolumeMounts = append(t.VolumeMounts, config.VolumeMount{Source: v.Source, Target: v.Target, ReadOnly: v.ReadOnly})
			if v.Bind != nil && bool(v.Bind.CreateHostPath) && !slices.Contains(m.hostPaths, v.Source) {
				m.hostPaths = append(m.hostPaths, v.Source)
			}
			if v.Bind != nil && v.Bind.Propagation != "" && v.Bind.Propagation != types.PropagationRPrivate {
				m.unmap("bind propagation "+v.Bind.Propagation, path...)
			}
			if v.Bind != nil && v.Bind.SELinux != "" {
				m.unmap("selinux relabelling", path...)
			}
		case types.VolumeTypeVolume:
			if v.Source == "" {
				// Compose keeps an anonymous volume across the container's
				// recreation: here, one volume per ordinal, named from the
				// mount path, which down --volumes removes.
				name := anonymousName(v.Target)
				if _, taken := claims[name]; taken || name == "" {
					m.unmap(fmt.Sprintf("an anonymous volume: its per-ordinal name %q is taken: name it", name), path...)
					continue
				}
				claims[name] = len(m.set.VolumeClaimTemplates)
				m.set.VolumeClaimTemplates = append(m.set.VolumeClaimTemplates, config.VolumeClaimTemplate{Name: name, MountPath: v.Target})
				continue
			}
			if ci, ok := claims[v.Source]; ok {
				c := &m.set.VolumeClaimTemplates[ci]
				if c.MountPath == "" {
					c.MountPath = v.Target
				}
				continue
			}
			name := v.Source
			if vol, ok := m.p.Volumes[v.Source]; ok && vol.Name != "" {
				name = vol.Name
				if vol.Driver != "" && vol.Driver != "local" || len(vol.DriverOpts) > 0 {
					m.unmap("the volume's driver and options: Docker creates it with the local driver", path...)
				}
			}
			t.VolumeMounts = append(t.VolumeMounts, config.VolumeMount{Source: name, Target: v.Target, ReadOnly: v.ReadOnly})
			if *m.set.Replicas > 1 && slices.Contains(dataPaths, strings.TrimSuffix(v.Target, "/")) {
				m.warn("volume %s at %s is shared by all %d replicas: a database's data path wants one volume per replica (x-ostset.volumeClaimTemplates)", v.Source, v.Target, *m.set.Replicas)
			}
			if v.Volume != nil && (v.Volume.NoCopy || v.Volume.Subpath != "") {
				m.unmap("volume nocopy and subpath", path...)
			}
		case types.VolumeTypeTmpfs:
			entry := v.Target
			if v.Tmpfs != nil {
				var opts []string
				if v.Tmpfs.Size > 0 {
					opts = append(opts, fmt.Sprintf("size=%d", int64(v.Tmpfs.Size)))
				}
				if v.Tmpfs.Mode > 0 {
					opts = append(opts, fmt.Sprintf("mode=%o", v.Tmpfs.Mode))
				}
				if len(opts) > 0 {
					entry += ":" + strings.Join(opts, ",")
				}
			}
			t.Tmpfs = append(t.Tmpfs, entry)
		default:
			m.unmap("volume type "+v.Type, path...)
		}
	}
	for _, c := range m.set.VolumeClaimTemplates {
		if c.MountPath == "" {
			m.unmap(fmt.Sprintf("claim %q has no mountPath and no volume of the service uses it", c.Name), "x-ostset", "volumeClaimTemplates")
		}
	}
}

func (m *mapper) settings() {
	svc, t := m.svc, &m.set.Template
	t.StopSignal = svc.StopSignal
	if svc.StopGracePeriod != nil {
		secs := int((time.Duration(*svc.StopGracePeriod) + time.Second - 1) / time.Second)
		m.set.TerminationGracePeriodSeconds = &secs
	}
	if svc.ShmSize > 0 {
		t.ShmSize = strconv.FormatInt(int64(svc.ShmSize), 10)
	}
	for name, u := range svc.Ulimits {
		if t.Ulimits == nil {
			t.Ulimits = map[string]config.Ulimit{}
		}
		if u.Single > 0 {
			t.Ulimits[name] = config.Ulimit{Soft: u.Single, Hard: u.Single}
		} else {
			t.Ulimits[name] = config.Ulimit{Soft: u.Soft, Hard: u.Hard}
		}
	}
	if len(svc.Sysctls) > 0 {
		t.Sysctls = maps.Clone(map[string]string(svc.Sysctls))
	}
	t.Tmpfs = append(t.Tmpfs, svc.Tmpfs...)
	t.CapAdd, t.CapDrop, t.Init = svc.CapAdd, svc.CapDrop, svc.Init
	for _, host := range slices.Sorted(maps.Keys(svc.ExtraHosts)) {
		for _, ip := range svc.ExtraHosts[host] {
			t.ExtraHosts = append(t.ExtraHosts, host+"="+ip)
		}
	}
}

// containerLabel carries runtime, platform, pid: host, stdin_open and tty in
// the template's config.LabelComposeContainer: the set file has no field for
// them, and as a label they are part of the revision.
func (m *mapper) containerLabel() {
	svc := m.svc
	var kv []string
	if svc.Runtime != "" {
		kv = append(kv, "runtime="+svc.Runtime)
	}
	if svc.Platform != "" {
		if parts := strings.Split(svc.Platform, "/"); len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
			m.unmap(fmt.Sprintf("%q is not OS/ARCH[/VARIANT]", svc.Platform), "platform")
		} else {
			kv = append(kv, "platform="+svc.Platform)
		}
	}
	switch svc.Pid {
	case "":
	case "host":
		kv = append(kv, "pid=host")
	default:
		m.unmap(fmt.Sprintf("pid %q: ostset gives a replica its own PID namespace, or the host's (pid: host)", svc.Pid), "pid")
	}
	if svc.StdinOpen {
		kv = append(kv, "stdin_open=true")
	}
	if svc.Tty {
		kv = append(kv, "tty=true")
	}
	if strings.ContainsAny(svc.Runtime, ",=") {
		m.unmap(fmt.Sprintf("runtime %q: not a runtime's name", svc.Runtime), "runtime")
		return
	}
	if len(kv) > 0 {
		m.set.Template.Labels[config.LabelComposeContainer] = strings.Join(kv, ",")
	}
}

func (m *mapper) resources() {
	svc, r := m.svc, &m.set.Template.Resources
	if svc.CPUS > 0 {
		r.CPUs = strconv.FormatFloat(float64(svc.CPUS), 'f', -1, 32)
	}
	if svc.MemLimit > 0 {
		r.Memory = strconv.FormatInt(int64(svc.MemLimit), 10)
	}
	d := svc.Deploy
	if d == nil {
		return
	}
	if l := d.Resources.Limits; l != nil {
		if l.NanoCPUs > 0 {
			r.CPUs = strconv.FormatFloat(float64(l.NanoCPUs), 'f', -1, 32)
		}
		if l.MemoryBytes > 0 {
			r.Memory = strconv.FormatInt(int64(l.MemoryBytes), 10)
		}
		if l.Pids != 0 || len(l.Devices) > 0 || len(l.GenericResources) > 0 {
			m.unmap("pids, devices and generic resources", "deploy", "resources", "limits")
		}
	}
	if d.Resources.Reservations != nil {
		m.unmap("reservations: one engine, nothing to schedule", "deploy", "resources", "reservations")
	}
	for field, set := range map[string]bool{
		"mode":            d.Mode != "" && d.Mode != "replicated",
		"labels":          len(d.Labels) > 0,
		"update_config":   d.UpdateConfig != nil,
		"rollback_config": d.RollbackConfig != nil,
		"restart_policy":  d.RestartPolicy != nil,
		"placement":       !reflect.ValueOf(d.Placement).IsZero(),
		"endpoint_mode":   d.EndpointMode != "",
	} {
		if set {
			why := "a Swarm setting"
			switch field {
			case "update_config", "rollback_config":
				why = "use x-ostset.updateStrategy"
			case "restart_policy":
				why = "use restart:"
			}
			m.unmap(why, "deploy", field)
		}
	}
}

// network joins the set to the project's networks the service uses, in
// compose's order (priority, then name), each with its aliases. A service on
// one network keeps the form it had before sets could join several: the
// network, and its aliases in a label, so that its revision stays the same.
func (m *mapper) network() {
	svc := m.svc
	if m.networkMode() {
		return
	}
	keys := slices.Sorted(maps.Keys(svc.Networks))
	slices.SortStableFunc(keys, func(a, b string) int { return prio(svc.Networks[b]) - prio(svc.Networks[a]) })
	if len(keys) == 0 {
		keys = []string{"default"}
	}
	var nets []config.NetworkAttachment
	for _, key := range keys {
		n := config.NetworkAttachment{Name: m.p.Name + "_" + key}
		if pn, ok := m.p.Networks[key]; ok && pn.Name != "" {
			n.Name = pn.Name
			if fields := networkFields(pn); len(fields) > 0 {
				m.unmap(fmt.Sprintf("the network's %s (networks.%s): ostset creates a bridge with address pools and no more", strings.Join(fields, ", "), key), "networks", key)
			}
			n.IPAM = pools(pn.Ipam)
		}
		if c := svc.Networks[key]; c != nil {
			for _, a := range c.Aliases {
				if !dnsAlias.MatchString(strings.ReplaceAll(a, "_", "-")) {
					m.unmap(fmt.Sprintf("alias %q: a DNS name of labels of letters, digits and '-'", a), "networks", key, "aliases")
				}
			}
			n.Aliases = c.Aliases
			m.endpointFields(key, c, &n)
		}
		nets = append(nets, n)
	}
	m.set.Network = nets[0].Name
	if len(nets) == 1 && nets[0].IPv4Address == "" && nets[0].IPv6Address == "" && len(nets[0].IPAM) == 0 {
		m.aliases = nets[0].Aliases
	} else {
		m.set.Networks = nets
	}
	if m.set.ServiceName != svc.Name {
		// compose's name as written ("Backend", "my_service") still answers.
		m.aliases = append([]string{svc.Name}, m.aliases...)
	}
	m.identityNames()
	if len(m.aliases) > 0 {
		m.set.Template.Labels[LabelAliases] = strings.Join(m.aliases, ",")
	}
}

// identityNames makes container_name and hostname names a one-replica
// service answers to on its networks: the replica's container is named
// <set>-<ordinal> as any other, and its hostname is that name.
func (m *mapper) identityNames() {
	for _, f := range []struct{ field, name string }{{"container_name", m.svc.ContainerName}, {"hostname", m.svc.Hostname}} {
		switch {
		case f.name == "" || slices.Contains(m.aliases, f.name) || f.name == m.svc.Name:
		case *m.set.Replicas > 1:
			m.unmap(fmt.Sprintf("%q names one container, and the service has %d replicas (docker compose refuses it too)", f.name, *m.set.Replicas), f.field)
		case !dnsAlias.MatchString(f.name):
			m.unmap(fmt.Sprintf("%q: a DNS name of labels of letters, digits and '-'", f.name), f.field)
		default:
			m.aliases = append(m.aliases, f.name)
		}
	}
}

// networkFields names the fields of a project's network that ostset's plain
// bridge does not have (it creates a network with none, and uses an existing
// one, external or not, as it is).
func networkFields(n types.NetworkConfig) []string {
	var out []string
	for field, set := range map[string]bool{
		"driver":                    n.Driver != "" && n.Driver != "bridge",
		"driver_opts":               len(n.DriverOpts) > 0,
		"ipam.driver":               n.Ipam.Driver != "" && n.Ipam.Driver != "default",
		"ipam.options":              len(n.Ipam.Options) > 0,
		"ipam.config.aux_addresses": slices.ContainsFunc(n.Ipam.Config, func(p *types.IPAMPool) bool { return p != nil && len(p.AuxiliaryAddresses) > 0 }),
		"internal":                  n.Internal,
		"attachable":                n.Attachable,
		"labels":                    len(n.Labels) > 0,
		"enable_ipv4":               n.EnableIPv4 != nil && !*n.EnableIPv4,
		"enable_ipv6":               n.EnableIPv6 != nil && *n.EnableIPv6 && !slices.ContainsFunc(n.Ipam.Config, func(p *types.IPAMPool) bool { return p != nil && strings.Contains(p.Subnet, ":") }),
	} {
		if set {
			out = append(out, field)
		}
	}
	slices.Sort(out)
	return out
}

// endpointFields lists what a service asks of its endpoint on a network
// beyond its aliases and priority, one line per field, every field of the
// loader's that is set (a field a later loader adds is listed too).
func (m *mapper) endpointFields(key string, c *types.ServiceNetworkConfig, n *config.NetworkAttachment) {
	v := reflect.ValueOf(*c)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if name == "aliases" || name == "priority" || name == "#extensions" || v.Field(i).IsZero() {
			continue
		}
		if name == "ipv4_address" || name == "ipv6_address" {
			m.fixedAddress(n, name, v.Field(i).String(), key)
			continue
		}
		why, ok := endpointWhy[name]
		if !ok {
			why = "not mapped"
		}
		m.unmap(why, "networks", key, name)
	}
}

var endpointWhy = map[string]string{
	"mac_address":    "not a setting ostset gives a replica's endpoint",
	"link_local_ips": "not a setting ostset gives a replica's endpoint",
	"driver_opts":    "an endpoint's driver options are not part of a set's network attachment",
	"gw_priority":    "the engine API has it from 1.48 (Docker 28); ostset speaks 1.41",
	"interface_name": "not a setting ostset gives a replica: its interfaces are eth0, eth1, … in the order of its networks",
}

// anonymousName is the claim of an anonymous volume mounted at target:
// "anon-" and the path as a DNS label ("/app/node_modules":
// anon-app-node-modules).
func anonymousName(target string) string {
	label := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(target), "-"), "-")
	return strings.TrimSuffix("anon-"+label, "-")
}

// dnsLabel is a compose service name as a DNS-1123 label, the set's
// serviceName: lowercase, with '-' for '_' and '.'.
func dnsLabel(service string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(service))
}

var dnsAlias = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)

func prio(c *types.ServiceNetworkConfig) int {
	if c == nil {
		return 0
	}
	return c.Priority
}

// dependsOn records the order of 'up'. A dependency waited for with
// service_completed_successfully is a job (Project.Jobs), run once per up.
func (m *mapper) dependsOn() {
	var names []string
	for _, dep := range slices.Sorted(maps.Keys(m.svc.DependsOn)) {
		d := m.svc.DependsOn[dep]
		if _, ok := m.p.Services[dep]; !ok {
			continue
		}
		if m.oneShots[dep] != (d.Condition == types.ServiceConditionCompletedSuccessfully) {
			m.unmap("a service that another waits to complete runs once per up, so it cannot also be waited for as started or healthy", "depends_on", dep)
			continue
		}
		m.deps = append(m.deps, Dep{Set: SetName(m.p.Name, dep), Condition: d.Condition, Restart: d.Restart})
		if !m.oneShots[dep] {
			names = append(names, SetName(m.p.Name, dep))
		}
	}
	if len(names) > 0 {
		m.set.Template.Labels[LabelDependsOn] = strings.Join(names, ",")
	}
}

// defaultImage is the name compose gives an image it builds.
func defaultImage(project, service string) string { return project + "-" + service }

func (m *mapper) buildImage() {
	b := m.svc.Build
	if b == nil {
		return
	}
	image := m.svc.Image
	if image == "" {
		image = defaultImage(m.p.Name, m.svc.Name)
		m.set.Template.Image = image
	}
	dockerfile := b.Dockerfile
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	if filepath.IsAbs(dockerfile) {
		if rel, err := filepath.Rel(b.Context, dockerfile); err == nil {
			dockerfile = rel
		}
	}
	if strings.Contains(b.Context, "://") || strings.HasPrefix(b.Context, "git@") {
		m.unmap("a remote build context: ostset builds from a local directory", "build", "context")
	}
	m.build = &Build{Set: m.set.Name, Image: image, Context: b.Context, Dockerfile: dockerfile, Args: b.Args, Target: b.Target, Labels: b.Labels, NoCache: b.NoCache, Pull: b.Pull}
	for field, set := range map[string]bool{
		"dockerfile_inline":   b.DockerfileInline != "",
		"ssh":                 len(b.SSH) > 0,
		"cache_from":          len(b.CacheFrom) > 0,
		"cache_to":            len(b.CacheTo) > 0,
		"additional_contexts": len(b.AdditionalContexts) > 0,
		"secrets":             len(b.Secrets) > 0,
		"platforms":           len(b.Platforms) > 0,
		"tags":                len(b.Tags) > 0,
		"network":             b.Network != "",
		"extra_hosts":         len(b.ExtraHosts) > 0,
		"shm_size":            b.ShmSize > 0,
		"ulimits":             len(b.Ulimits) > 0,
		"isolation":           b.Isolation != "",
		"privileged":          b.Privileged,
		"entitlements":        len(b.Entitlements) > 0,
		"no_cache_filter":     len(b.NoCacheFilter) > 0,
		"provenance":          b.Provenance != "",
		"sbom":                b.SBOM != "",
	} {
		if set {
			m.unmap("the engine's build API (legacy builder) does not take it", "build", field)
		}
	}
}

// unmappedFields lists the service fields ostset does not map, one line each.
func (m *mapper) unmappedFields() {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
				walk(v.Field(i))
				continue
			}
			if name == "-" || name == "" || mapped[name] || v.Field(i).IsZero() {
				continue
			}
			m.unmap(unmappedWhy(name), name)
		}
	}
	walk(reflect.ValueOf(m.svc))
	slices.SortStableFunc(m.unmapped, func(a, b string) int { return lineOf(a) - lineOf(b) })
}

// lineOf is the line of a "FILE:LINE: ..." entry, 0 without one.
func lineOf(entry string) int {
	where, _, _ := strings.Cut(entry, ": ")
	if i := strings.LastIndexByte(where, ':'); i >= 0 {
		if n, err := strconv.Atoi(where[i+1:]); err == nil {
			return n
		}
	}
	return 0
}

func unmappedWhy(field string) string {
	switch field {
	case "container_name":
		return "replicas are named <set>-<ordinal>"
	case "hostname":
		return "each replica's hostname is its name, <set>-<ordinal>"
	case "privileged", "devices", "ipc", "userns_mode", "security_opt", "group_add", "read_only", "uts", "credential_spec",
		"umask", "use_api_socket", "annotations", "mac_address", "domainname", "storage_opt", "device_cgroup_rules", "cgroup", "cgroup_parent":
		return "not a setting ostset gives a replica"
	case "cpu_count", "cpu_percent", "cpu_period", "cpu_quota", "cpu_rt_period", "cpu_rt_runtime", "cpuset", "cpu_shares",
		"mem_reservation", "memswap_limit", "mem_swappiness", "oom_kill_disable", "oom_score_adj", "pids_limit", "blkio_config", "gpus":
		return "a resource setting the set has no field for: it limits cpus and memory (deploy.resources.limits, cpus, mem_limit)"
	case "dns", "dns_opt", "dns_search":
		return "a replica resolves through the engine's DNS on its networks, which answers with the set's names"
	case "volumes_from", "volume_driver":
		return "a replica's volumes are its own mounts and per-ordinal volumes"
	case "attach":
		return "a setting of docker compose up's output: 'ostset logs' reads any replica"
	case "provider", "models":
		return "not a container: ostset runs containers only"
	case "net":
		return "the old name of network_mode: write network_mode"
	case "logging", "log_driver", "log_opt":
		return "replicas log with the engine's default driver ('ostset logs' reads it)"
	case "links", "external_links":
		return "replicas reach each other by DNS name on the project's network"
	}
	return "not mapped"
}

// apiAtLeast144 tells whether an engine API version takes a healthcheck's
// start interval.
func apiAtLeast144(version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || major == 1 && minor >= 44
}

func startIntervalWhy(version string) string {
	why := "the engine API has it from 1.44 (Docker 25)"
	if version != "" {
		why += ", this engine speaks " + version
	}
	return why + ": without it, the interval applies during the start period too"
}
