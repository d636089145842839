// Package engine is the controller: one pass of a set takes its lock, loads
// its state, observes the Runtime, plans (MakePlan, pure: no I/O, no clock),
// executes and saves; Apply, Converge, Follow, Delete and Recreate are built
// on passes. It also holds the state directory (Store: the sets' state, locks,
// event log, volume-use records, the directory's ID) and the Runtime
// interface it drives. It reads the set model of package config and the rules
// of health and volumes; it never imports the Docker SDK (docker implements
// Runtime), a file format other than config's (kube, compose), the daemon
// (engine/daemon drives it) or the CLI.
package engine

import (
	"context"
	"time"
)

// Container states as Docker reports them.
const (
	StateCreated    = "created"
	StateRunning    = "running"
	StateRestarting = "restarting"
	StatePaused     = "paused"
	StateExited     = "exited"
	StateDead       = "dead"
	StateRemoving   = "removing"
)

// Health values; HealthNone means the container has no healthcheck.
const (
	HealthNone      = ""
	HealthStarting  = "starting"
	HealthHealthy   = "healthy"
	HealthUnhealthy = "unhealthy"
)

// Replica is one observed container that carries the set's labels.
type Replica struct {
	ID       string
	Name     string
	Ordinal  int
	Revision string
	State    string
	Health   string
	// Created is when the container was created.
	Created time.Time
	// ReadySince is when the container last became ready (zero if unknown or not ready).
	// Filled only when Observe is asked for timings.
	ReadySince time.Time
	// Owner is the state directory that created the container (zero: made
	// before ostset labelled owners).
	Owner Owner
	// NotReady says why a replica that is not ready is not; nil for a ready
	// one, or when the runtime could not tell.
	NotReady *NotReadyDetail
	// Networks names the networks a running container has an endpoint on; nil
	// when it is not running or the engine did not say. The planner checks it
	// against the network of the replica's own revision (see planner.detached).
	Networks []string
}

// Foreign is a container without the set's labels that holds a name the set needs.
type Foreign struct {
	ID   string
	Name string
	// Owner is the io.ostset.set label of the container, empty if none.
	Owner string
}

// Volume is one observed per-ordinal volume carrying the set's labels.
type Volume struct {
	Name    string
	Claim   string
	Ordinal int
	Created time.Time
	// Owner is the state directory that created the volume (zero: made before
	// ostset labelled owners).
	Owner Owner
}

// InitContainer is one observed init container of the set (a container with the
// set's labels and io.ostset.init). It is not a replica.
type InitContainer struct {
	ID      string
	Name    string // container name: <set>-<ordinal>-init-<init name>
	Ordinal int
	// Init is the init container's name in the template (the io.ostset.init label).
	Init     string
	Revision string
	State    string
	// ExitCode is the exit code of an exited container.
	ExitCode int
	Created  time.Time
	Owner    Owner
	// Logs are the last lines of a failed init container's output; the
	// controller fills them in after observing (Runtime.LogTail).
	Logs []string
}

// Observed is a snapshot of what Docker holds for one set.
type Observed struct {
	Replicas []Replica
	Foreign  []Foreign
	Volumes  []Volume
	// Inits are the set's init containers, by ordinal and then name.
	Inits []InitContainer
	// OwnedElsewhere: the set's containers and volumes that another state
	// directory owns. Observe leaves it empty; Ownership.Classify moves them here
	// out of Replicas and Volumes.
	OwnedElsewhere []Conflict
}

// ImageConfig is what an image declares that the engine checks a template
// against (Runtime.ImageConfig).
type ImageConfig struct {
	// Volumes are the mount points it declares (VOLUME), sorted.
	Volumes []string
	// ExposedPorts are the ports it declares (EXPOSE), as "6379/tcp", sorted.
	ExposedPorts []string
}

// ObserveOptions tunes an observation.
type ObserveOptions struct {
	// Timings asks for Replica.ReadySince (costs one inspect per ready container).
	Timings bool
	// Logs asks for the last log lines of the replicas that are not ready
	// (NotReadyDetail.Logs).
	Logs bool
	// Died lists containers whose die event has been seen: their state is read
	// from an inspect of each, not from the container list, which can still
	// show one running just after its die event (Docker sends the event before
	// the list catches up).
	Died []string
}

// ReplicaSpec is everything needed to create one replica container.
type ReplicaSpec struct {
	Set  string
	Name string // container name and hostname
	// Hostname, if set, is the hostname when it is not Name: an init container
	// has its replica's.
	Hostname string
	Ordinal  int
	Revision string
	Image    string // image ID
	// Entrypoint and Cmd are nil when the image defaults apply.
	Entrypoint []string
	Cmd        []string
	Env        []string // KEY=value, sorted
	WorkingDir string
	User       string
	Labels     map[string]string // user labels plus the io.ostset.* labels
	Network    string            // network name: the container is created on it
	Aliases    []string
	// OtherNetworks are joined after the create and before the start (the
	// engine's create takes one network at API 1.41).
	OtherNetworks []NetworkJoin
	Ports         []PortBinding
	Healthcheck   *Healthcheck // nil: the image's own
	Mounts        []Mount
	Volumes       []VolumeSpec // per-ordinal volumes to ensure before creating
	NanoCPUs      int64
	MemoryBytes   int64
	Restart       string // no, always, unless-stopped, on-failure[:N]
	StopTimeout   time.Duration
	ContainerSettings
}

// NetworkJoin is a network a container joins with its DNS aliases.
type NetworkJoin struct {
	Name    string
	Aliases []string
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
	RootOwner *FileOwner
	// Observed is the volume as the pass that asks for the create observed it,
	// carrying the set's labels and owned by the state directory; nil if it was
	// not there. CreateReplica may take it as it is rather than look it up again.
	Observed *Volume
}

// FileOwner is a numeric user and group.
type FileOwner struct{ UID, GID int }

// Runtime is what the engine needs from a container engine. Implementations must
// never remove or change an object that does not carry the set's io.ostset.set label,
// nor one that CheckOwner refuses for the call's context (another state directory's).
type Runtime interface {
	// Observe lists the set's containers and volumes, and foreign containers named
	// like the set's replicas (<set>-<digits>). Replicas that are not ready carry
	// why (Replica.NotReady).
	Observe(ctx context.Context, set string, opts ObserveOptions) (Observed, error)
	// EnsureNetwork returns the ID of the named network, creating a bridge labelled
	// io.ostset.managed=true if none exists. It never creates a duplicate.
	EnsureNetwork(ctx context.Context, name string) (string, error)
	// RemoveNetwork removes the network if ostset created it and nothing is attached;
	// it reports whether it removed it. A network the engine refuses to remove for
	// active endpoints while no container is attached is a *StaleEndpointsError.
	RemoveNetwork(ctx context.Context, name string) (bool, error)
	// CreateReplica ensures the spec's volumes (refusing volumes that exist without
	// the set's labels), creates the container attached to the network with its
	// aliases, gives each volume with a RootOwner that owner while the volume is
	// new (created by the call, or empty), and starts it. It reports which
	// volumes already existed. An init container is created the same way, from
	// a spec labelled io.ostset.init.
	CreateReplica(ctx context.Context, spec ReplicaSpec) (CreateResult, error)
	// StartReplica starts a created or stopped container of the set.
	StartReplica(ctx context.Context, set, id string) error
	// RemoveReplica stops (with the grace period) and removes a container of the set.
	RemoveReplica(ctx context.Context, set, id string, grace time.Duration) error
	// RemoveVolume removes a volume of the set.
	RemoveVolume(ctx context.Context, set, name string) error
	// EnsureImage makes image ref present locally as policy says (config.PullIfNotPresent,
	// PullAlways or PullNever; "" is IfNotPresent) and returns its local image ID. A pull
	// reports its steps to progress (which may be nil). A missing image under Never, or a
	// pull that fails, is an *ImageError.
	EnsureImage(ctx context.Context, ref, policy string, progress func(PullProgress)) (string, error)
	// ImageConfig returns what a local image declares that the engine checks
	// a template against: its VOLUMEs and EXPOSEd ports.
	ImageConfig(ctx context.Context, imageID string) (ImageConfig, error)
	// LogTail returns the last lines (at most n) of the output, stdout and stderr, of
	// a container of the set.
	LogTail(ctx context.Context, set, id string, n int) ([]string, error)
	// Watch sends on the returned channel (without blocking; it may coalesce) whenever a
	// container of the set changes. The subscription is open when Watch returns.
	Watch(ctx context.Context, set string) (<-chan struct{}, error)
}

// CreateResult says what CreateReplica found.
type CreateResult struct {
	ID            string
	ReusedVolumes []Volume
}

// SetEvent is one Docker event about a container that carries a set's label.
type SetEvent struct {
	Set    string
	ID     string // the container's
	Name   string // the container's name
	Action string // as Docker names it: create, destroy, die, "health_status: healthy", …
	// Time is when Docker says it happened.
	Time time.Time
}

// EventSource streams the container events of every set on one subscription:
// what the daemon watches, instead of one subscription per set.
type EventSource interface {
	// WatchSets opens the subscription; it is open when WatchSets returns, so
	// nothing that happens afterwards is missed. The channel is closed when ctx
	// ends or the stream fails (the engine restarted, the connection dropped).
	WatchSets(ctx context.Context) (<-chan SetEvent, error)
}
