package plan

import (
	"slices"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
	"github.com/ostset/ostset/volumes"
)

// ReplicaSpec is everything needed to create one replica container.
type ReplicaSpec struct {
	Set  string
	Name string // container name and hostname
	// Hostname, if set, is the hostname when it is not Name: an init container
	// has its replica's.
	Hostname string
	// Domainname makes hostname -f <name>.<domainname>, as a pod's is.
	Domainname string
	Ordinal    int
	Revision   string
	Image      string // image ID
	// Entrypoint and Cmd are nil when the image defaults apply.
	Entrypoint []string
	Cmd        []string
	Env        []string // KEY=value, sorted
	// EnvRefs are the variables whose values the controller reads from the
	// state directory and adds to Env just before the create: a plan never
	// holds a Secret's value.
	EnvRefs    map[string]envref.Ref
	WorkingDir string
	User       string
	Labels     map[string]string // user labels plus the io.ostset.* labels
	Network    string            // network name: the container is created on it (or a network mode, see NetworkMode)
	Aliases    []string
	// IPv4Address and IPv6Address are the container's fixed addresses on
	// Network, and IPAM the network's pools (a LabelIPAM value) for its create.
	IPv4Address, IPv6Address, IPAM string
	// Hooks are the lifecycle hooks run in the container after its start and
	// before its stop (also in its LabelHooks, for the stop).
	Hooks config.Lifecycle
	// OtherNetworks are joined after the create and before the start (the
	// engine's create takes one network at API 1.41).
	OtherNetworks []NetworkJoin
	Ports         []PortBinding
	Healthcheck   *Healthcheck // nil: the image's own
	// OwnProbes are the tests of the liveness and startup probes ostset runs
	// in the container (engine/liveness); the container's config has none.
	OwnProbes [][]string
	Mounts    []Mount
	// Files are copied into the container after its create, before its
	// start: the files of ConfigMap and Secret volumes and ostset's probe,
	// through the engine's API, which works where the engine's files are not
	// this host's.
	Files       []File
	Volumes     []VolumeSpec // per-ordinal volumes to ensure before creating
	NanoCPUs    int64
	MemoryBytes int64
	// Reservations, as Kubernetes' requests: a soft memory limit the kernel
	// reclaims down to under pressure, and a relative CPU weight.
	MemoryReservation int64
	CPUShares         int64
	Restart           string // no, always, unless-stopped, on-failure[:N]
	StopTimeout       time.Duration
	ContainerSettings
}

// NetworkJoin is a network a container joins with its DNS aliases.
type NetworkJoin struct {
	Name    string
	Aliases []string
	// Fixed addresses and the network's pools, as ReplicaSpec's for Network.
	IPv4Address, IPv6Address, IPAM string
}

// PortBinding publishes one container port.
type PortBinding struct {
	ContainerPort int
	HostPort      int
	HostIP        string
	Protocol      string // tcp, udp, sctp
}

// Healthcheck is the Docker healthcheck; Test ["NONE"] disables the image's.
type Healthcheck struct {
	Test        []string
	Interval    time.Duration
	Timeout     time.Duration
	Retries     int
	StartPeriod time.Duration
	// StartInterval needs API 1.44: the docker runtime refuses it below.
	StartInterval time.Duration
}

// Mount is a bind mount (Source is a path) or a named volume (Source is a name).
type Mount struct {
	Type     string // "bind" or "volume"
	Source   string
	Target   string
	ReadOnly bool
}

// File is a file (or, with Dir, a directory) a replica gets in its file
// system: Path is absolute, Mode the permission bits, owned by UID:GID.
type File struct {
	Path     string
	Dir      bool
	Data     []byte
	Mode     uint32
	UID, GID int
}

// VolumeSpec is a per-ordinal volume with its labels.
type VolumeSpec struct {
	Name       string
	Driver     string
	DriverOpts map[string]string
	Labels     map[string]string
	// MountPath is where the replica mounts the volume.
	MountPath string
	// RootOwner, if set, is given to the volume's root directory while the
	// volume is new: created by this call, or still empty.
	RootOwner *volumes.FileOwner
	// NoCopy: the volume starts empty, without the image's files at the
	// mount path (config.VolumeClaimTemplate.NoCopy).
	NoCopy bool
	// Observed is the volume as the pass that asks for the create observed it,
	// carrying the set's labels and owned by the state directory; nil if it was
	// not there. CreateReplica may take it as it is rather than look it up again.
	Observed *Volume
}

// NeedsProbe reports whether the healthcheck or a probe ostset runs in the
// container runs ostset's own probe program (config.ProbePath).
func (r ReplicaSpec) NeedsProbe() bool {
	if r.Healthcheck != nil && config.UsesProbe(r.Healthcheck.Test) {
		return true
	}
	return slices.ContainsFunc(r.OwnProbes, config.UsesProbe)
}
