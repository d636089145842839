// Package engine is the controller: one pass of a set takes its lock, loads
// its state, observes the Runtime, plans, executes and saves, each step a
// call into the package that owns it (engine/state, the Runtime,
// engine/plan); Apply, ConvergeTo, Follow, Delete and Recreate are built on
// passes, and every wait runs one loop. It owns the Runtime interface it
// drives, the executor, the progress reporter and the preflight check.
//
// It imports engine/plan and engine/state, config and the rules of health
// and volumes. It must never import the Docker SDK (docker implements
// Runtime), a file format other than config's (kube, compose), the daemon
// (engine/daemon drives it) or the CLI.
package engine

import (
	"context"
	"time"

	"github.com/ostset/ostset/engine/plan"
)

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

// DiesSeen is a Runtime that is sent its containers' die events (the Docker
// layer through Watch, the daemon through its subscription). DiedUnanswered
// reports whether a die of the set arrived that no observation has answered:
// one that came while the last observation was taken, or since. A pass whose
// plan would act then plans again from a new observation (ErrReplan): at API
// 1.41 the list taken at the time of the die can still show the container
// running, and the plan would act on a set that is no longer so (after all
// of a set's replicas were killed at once, it recreated one while the one
// below it lay exited and unanswered).
type DiesSeen interface {
	DiedUnanswered(set string) bool
}

// Runtime is what the engine needs from a container engine. Implementations must
// never remove or change an object that does not carry the set's io.ostset.set label,
// nor one that CheckOwner refuses for the call's context (another state directory's).
type Runtime interface {
	// Observe lists the set's containers and volumes, and foreign containers named
	// like the set's replicas (<set>-<digits>). Replicas that are not ready carry
	// why (Replica.NotReady).
	Observe(ctx context.Context, set string, opts ObserveOptions) (plan.Observed, error)
	// EnsureNetwork returns the ID of the named network, creating a bridge labelled
	// io.ostset.managed=true and labels (plan.NetworkLabels) if none exists. It
	// never creates a duplicate.
	EnsureNetwork(ctx context.Context, name string, labels map[string]string) (string, error)
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
	CreateReplica(ctx context.Context, spec plan.ReplicaSpec) (CreateResult, error)
	// StartReplica starts a created or stopped container of the set.
	StartReplica(ctx context.Context, set, id string) error
	// ConnectNetworks connects a container of the set to each network of joins
	// it has no endpoint on, with that network's aliases, leaving the others.
	ConnectNetworks(ctx context.Context, set, id string, joins []plan.NetworkJoin) error
	// StopReplica stops a container of the set (with the grace period), keeping it.
	StopReplica(ctx context.Context, set, id string, grace time.Duration) error
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
	// WaitExit waits until a container of the set is no longer running and
	// returns its exit code.
	WaitExit(ctx context.Context, set, id string) (int, error)
	// LogTail returns the last lines (at most n) of the output, stdout and stderr, of
	// a container of the set.
	LogTail(ctx context.Context, set, id string, n int) ([]string, error)
	// Labelled lists the compose jobs' containers (plan.LabelJob) and the
	// networks ostset created (io.ostset.managed) that carry the label
	// key=value, each sorted by name.
	Labelled(ctx context.Context, key, value string) (Labelled, error)
	// Watch sends on the returned channel (without blocking; it may coalesce) whenever a
	// container of the set changes. The subscription is open when Watch returns.
	Watch(ctx context.Context, set string) (<-chan struct{}, error)
}

// Labelled is what Runtime.Labelled found.
type Labelled struct {
	Jobs     []JobContainer
	Networks []string
}

// JobContainer is the container of a compose job (Controller.RunJob).
type JobContainer struct {
	Set   string // its io.ostset.set label: the job's name
	ID    string
	Name  string
	Owner plan.Owner
}

// CreateResult says what CreateReplica found.
type CreateResult struct {
	ID            string
	ReusedVolumes []plan.Volume
	// CreatedVolumes names, when the call failed after making volumes (the
	// container's create or start failed), those volumes: the retry reuses
	// them, and that is no news.
	CreatedVolumes []string
}

// SetEvent is one Docker event about a container that carries a set's label,
// or about a network: a container of a set disconnected from it (Action
// "network disconnect"), or the network removed (Action "network destroy",
// with Set "": any set on it may be concerned).
type SetEvent struct {
	Set    string
	ID     string // the container's
	Name   string // the container's name
	Action string // as Docker names it: create, destroy, die, "health_status: healthy", …; "network disconnect", "network destroy"
	// Network is the network's name, for a network event.
	Network string
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
