package plan

import "time"

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
	// Healthcheck is the healthcheck the running container carries (its own
	// or its image's), filled by Observe while the engine's Health is
	// "starting", for ostset's prober; nil otherwise.
	Healthcheck *Healthcheck
	// StartedAt is when the container last started, filled with Healthcheck
	// (zero otherwise): a probe that passed before it was of an earlier run.
	StartedAt time.Time
	// Probed: ostset's own run of that healthcheck passed while the engine
	// still says "starting" (health.Probing). The runtime never sets it: the
	// controller does, from the prober's results, before planning, so that
	// the planner sees the prober only through the observation.
	Probed bool
	// Unstarted: the revision has a startup probe that has not passed for the
	// container's current run, or its liveness probe just had it restarted
	// (engine/liveness): not ready. Set, like Probed, by the controller before
	// it plans, from the set's state (state.State.MarkStartup).
	Unstarted bool
	// Restarts is how often ostset restarted the container in place for a
	// failed liveness or startup probe (set with Unstarted).
	Restarts int
}

// Foreign is a container without the set's labels that holds a name the set
// needs, or a compose job's container (Job).
type Foreign struct {
	ID   string
	Name string
	// Owner is the io.ostset.set label of the container, empty if none.
	Owner string
	// Job: the container is a compose job's (io.ostset.job), whatever its
	// set label says.
	Job bool
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
