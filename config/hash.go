package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/ostset/ostset/config/envref"
)

// RevisionSpec is what a revision pins: everything that shapes a replica
// container. Replicas, partition, maxUnavailable, policies, minReadySeconds,
// retention, history limit and grace period are deliberately not in it:
// changing them must not roll the set. Template.ImagePullPolicy is kept here
// but not hashed (see canonical).
type RevisionSpec struct {
	Template             Template              `json:"template"` // with Image = the reference as written
	ImageID              string                `json:"imageID"`
	VolumeClaimTemplates []VolumeClaimTemplate `json:"volumeClaimTemplates,omitempty"`
	ServiceName          string                `json:"serviceName"`
	Network              string                `json:"network"`
	Networks             []NetworkAttachment   `json:"networks,omitempty"`    // Set.Networks
	RestartedAt          string                `json:"restartedAt,omitempty"` // rollout restart stamp
	// InitImageIDs are the init containers' images resolved to IDs, by init
	// container name; a name missing here runs (and hashes) its reference.
	InitImageIDs map[string]string `json:"initImageIDs,omitempty"`
	// Services are more DNS names of every replica: Kubernetes.Services.
	Services []string `json:"services,omitempty"`
}

// RevisionSpec returns the revision s would run with the image reference
// resolved to imageID. Defaults are applied to a copy first, so a Set with
// and without explicit defaults yields the same revision. The result shares
// nothing with s. RestartedAt is left for the caller to carry over.
func (s Set) RevisionSpec(imageID string) RevisionSpec {
	s = s.Clone()
	s.ApplyDefaults()
	return RevisionSpec{
		Template:             s.Template,
		ImageID:              imageID,
		VolumeClaimTemplates: s.VolumeClaimTemplates,
		ServiceName:          s.ServiceName,
		Network:              s.Network,
		Networks:             s.Networks,
		Services:             s.Kubernetes.ServiceNames(),
	}
}

// RevisionName is the name of a revision of set: "<set>-<hash>".
func RevisionName(set, hash string) string { return set + "-" + hash }

// Hash is the revision hash: 10 lowercase hex characters of a SHA-256 over a
// canonical form of r. It is a promise to users: if it changes for an
// unchanged spec, upgrading ostset rolls every replica of every set. So the
// canonical form below is its own versioned type, independent of the JSON
// tags of the model, and it must never change meaning. A field added to the
// model later goes in with omitempty, so that specs not using it keep their
// hash. A deliberate change of the form is a new "v".
//
// The image counts only by ID (a tag renamed or re-pushed with the same
// content does not roll); the reference is used only when the ID is unknown.
// Nil and empty lists and maps hash alike, map order does not matter, and
// durations and resources count by value ("60s" and "1m", "256Mi" and
// "268435456" are the same).
func (r RevisionSpec) Hash() string {
	b, err := json.Marshal(r.canonical())
	if err != nil {
		panic("config: revision spec does not marshal: " + err.Error()) // plain strings, ints, maps
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:5])
}

type hashSpec struct {
	V                    int          `json:"v"`
	Template             hashTemplate `json:"template"`
	VolumeClaimTemplates []hashClaim  `json:"volumeClaimTemplates,omitempty"`
	ServiceName          string       `json:"serviceName"`
	Network              string       `json:"network"`
	// Networks came after v2: see hashNetworks.
	Networks    []hashNetwork `json:"networks,omitempty"`
	RestartedAt string        `json:"restartedAt,omitempty"`
	Services    []string      `json:"services,omitempty"` // after v2: absent without
}

type hashTemplate struct {
	Image       string                `json:"image"`
	Command     []string              `json:"command,omitempty"`
	Args        []string              `json:"args,omitempty"`
	Env         map[string]string     `json:"env,omitempty"`
	EnvRefs     map[string]envref.Ref `json:"envRefs,omitempty"`
	WorkingDir  string                `json:"workingDir,omitempty"`
	User        string                `json:"user,omitempty"`
	Labels      map[string]string     `json:"labels,omitempty"`
	Ports       []hashPort            `json:"ports,omitempty"`
	Healthcheck *hashHealthcheck      `json:"healthcheck,omitempty"`
	// Liveness and Startup came after v2: absent without.
	Liveness      *hashHealthcheck `json:"liveness,omitempty"`
	Startup       *hashHealthcheck `json:"startup,omitempty"`
	VolumeMounts  []hashMount      `json:"volumeMounts,omitempty"`
	CPUs          string           `json:"cpus,omitempty"`
	Memory        string           `json:"memory,omitempty"`
	Reservations  *Resources       `json:"reservations,omitempty"` // by value; absent before reservations
	RestartPolicy string           `json:"restartPolicy,omitempty"`

	// Container settings (added after v2: omitempty keeps older hashes).
	StopSignal string                `json:"stopSignal,omitempty"`
	ShmSize    string                `json:"shmSize,omitempty"`
	Ulimits    map[string]hashUlimit `json:"ulimits,omitempty"`
	Sysctls    map[string]string     `json:"sysctls,omitempty"`
	Tmpfs      []string              `json:"tmpfs,omitempty"`
	CapAdd     []string              `json:"capAdd,omitempty"`
	CapDrop    []string              `json:"capDrop,omitempty"`
	Init       *bool                 `json:"init,omitempty"`
	ExtraHosts []string              `json:"extraHosts,omitempty"`
	// InitContainers came after v2; omitted when there are none, so that
	// specs without them keep their hash.
	InitContainers []hashInit `json:"initContainers,omitempty"`
	// Lifecycle came after v2: absent without hooks (hashLifecycle).
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
}

type hashInit struct {
	Name         string                `json:"name"`
	Image        string                `json:"image"`
	Command      []string              `json:"command,omitempty"`
	Args         []string              `json:"args,omitempty"`
	Env          map[string]string     `json:"env,omitempty"`
	EnvRefs      map[string]envref.Ref `json:"envRefs,omitempty"`
	WorkingDir   string                `json:"workingDir,omitempty"`
	User         string                `json:"user,omitempty"`
	VolumeMounts []hashMount           `json:"volumeMounts,omitempty"`
	CPUs         string                `json:"cpus,omitempty"`
	Memory       string                `json:"memory,omitempty"`
}

type hashUlimit struct {
	Soft int `json:"soft"`
	Hard int `json:"hard"`
}

type hashPort struct {
	ContainerPort int    `json:"containerPort"`
	HostPort      int    `json:"hostPort,omitempty"`
	HostIP        string `json:"hostIP,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
}

type hashHealthcheck struct {
	Test        []string `json:"test,omitempty"`
	Interval    string   `json:"interval,omitempty"`
	Timeout     string   `json:"timeout,omitempty"`
	Retries     int      `json:"retries,omitempty"`
	StartPeriod string   `json:"startPeriod,omitempty"`
	// StartInterval came after v2.
	StartInterval string `json:"startInterval,omitempty"`
}

type hashNetwork struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	// Fixed addresses and pools came after v2.
	IPv4Address string     `json:"ipv4Address,omitempty"`
	IPv6Address string     `json:"ipv6Address,omitempty"`
	IPAM        []IPAMPool `json:"ipam,omitempty"`
}

type hashMount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

type hashClaim struct {
	Name       string            `json:"name"`
	MountPath  string            `json:"mountPath"`
	Driver     string            `json:"driver,omitempty"`
	DriverOpts map[string]string `json:"driverOpts,omitempty"`
	Owner      string            `json:"owner,omitempty"`
	NoCopy     bool              `json:"nocopy,omitempty"`
}

func (r RevisionSpec) canonical() hashSpec {
	t := r.Template
	// t.ImagePullPolicy is left out on purpose: it decides how the image ID is
	// found (pulled or not), and the ID is what is hashed. Changing only the
	// policy therefore rolls nothing, and a pull that brings a new ID does.
	image := r.ImageID
	if image == "" {
		image = t.Image
	}
	h := hashSpec{
		V: 2, // 2: resources count by value
		Template: hashTemplate{
			Image:         image,
			Command:       t.Command,
			Args:          t.Args,
			Env:           t.Env,
			EnvRefs:       t.EnvRefs, // the digest of each value: a new value rolls the set
			WorkingDir:    t.WorkingDir,
			User:          t.User,
			Labels:        t.Labels,
			CPUs:          canonicalQuantity(t.Resources.CPUs, ParseCPUs),
			Memory:        canonicalQuantity(t.Resources.Memory, ParseMemory),
			RestartPolicy: t.RestartPolicy,
		},
		ServiceName: r.ServiceName,
		Network:     r.Network,
		Networks:    hashNetworks(r.Networks),
		RestartedAt: r.RestartedAt,
		Services:    r.Services,
	}
	// The conversions below stop compiling when the model gains a field, so
	// that it is added here on purpose (TestHashCoversEveryField watches the
	// rest).
	for _, p := range t.Ports {
		h.Template.Ports = append(h.Template.Ports, hashPort(p))
	}
	h.Template.Healthcheck = hashCheck(t.Healthcheck)
	h.Template.Liveness, h.Template.Startup = hashCheck(t.Liveness), hashCheck(t.Startup)
	for _, m := range t.VolumeMounts {
		h.Template.VolumeMounts = append(h.Template.VolumeMounts, hashMount(m))
	}
	for _, c := range r.VolumeClaimTemplates {
		h.VolumeClaimTemplates = append(h.VolumeClaimTemplates, hashClaim(c))
	}
	if rv := t.Resources.Reservations; rv != nil {
		h.Template.Reservations = &Resources{CPUs: canonicalQuantity(rv.CPUs, ParseCPUs), Memory: canonicalQuantity(rv.Memory, ParseMemory)}
	}
	hashSettings(&h.Template, t)
	h.Template.Lifecycle = t.Lifecycle.Hashed()
	for _, c := range t.InitContainers {
		h.Template.InitContainers = append(h.Template.InitContainers, r.canonicalInit(c))
	}
	return h
}

func hashCheck(hc *Healthcheck) *hashHealthcheck {
	if hc == nil {
		return nil
	}
	return &hashHealthcheck{
		Test:          hc.Test,
		Interval:      durationKey(hc.Interval),
		Timeout:       durationKey(hc.Timeout),
		Retries:       hc.Retries,
		StartPeriod:   durationKey(hc.StartPeriod),
		StartInterval: durationKey(hc.StartInterval),
	}
}

// canonicalInit is an init container as hashed: like the main container, by
// image ID, with its pull policy left out.
func (r RevisionSpec) canonicalInit(c InitContainer) hashInit {
	image := r.InitImageIDs[c.Name]
	if image == "" {
		image = c.Image
	}
	h := hashInit{
		Name:       c.Name,
		Image:      image,
		Command:    c.Command,
		Args:       c.Args,
		Env:        c.Env,
		EnvRefs:    c.EnvRefs,
		WorkingDir: c.WorkingDir,
		User:       c.User,
		CPUs:       canonicalQuantity(c.Resources.CPUs, ParseCPUs),
		Memory:     canonicalQuantity(c.Resources.Memory, ParseMemory),
	}
	for _, m := range c.VolumeMounts {
		h.VolumeMounts = append(h.VolumeMounts, hashMount(m))
	}
	return h
}

// hashSettings adds the container settings, each by value: a signal however
// it is written (INT, SIGINT), shmSize as bytes, capabilities as the set the
// engine applies (any case, with or without CAP_, in any order).
func hashSettings(h *hashTemplate, t Template) {
	h.StopSignal = t.StopSignal
	if sig, err := CanonicalSignal(t.StopSignal); err == nil {
		h.StopSignal = sig
	}
	h.ShmSize = canonicalQuantity(t.ShmSize, ParseMemory)
	for name, u := range t.Ulimits {
		if h.Ulimits == nil {
			h.Ulimits = map[string]hashUlimit{}
		}
		h.Ulimits[name] = hashUlimit(u)
	}
	h.Sysctls = t.Sysctls
	h.Tmpfs = t.Tmpfs
	if len(t.CapAdd) > 0 {
		h.CapAdd = canonicalCapabilities(t.CapAdd)
	}
	if len(t.CapDrop) > 0 {
		h.CapDrop = canonicalCapabilities(t.CapDrop)
	}
	h.Init = t.Init
	h.ExtraHosts = t.ExtraHosts
}

// durationKey leaves an unset duration out rather than writing "0s".
func durationKey(d Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// canonicalQuantity hashes a quantity by value (256Mi and 268435456 are the same
// limit, and must not roll the set), or as written if it does not parse.
func canonicalQuantity(s string, parse func(string) (int64, error)) string {
	if n, err := parse(s); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return s
}
