package plan

import (
	"slices"
	"time"

	"github.com/ostset/ostset/health"
)

// Status is a set's status, with Kubernetes StatefulSet status semantics.
type Status struct {
	Name               string `json:"name"`
	Replicas           int    `json:"replicas"`
	CurrentReplicas    int    `json:"currentReplicas"`
	UpdatedReplicas    int    `json:"updatedReplicas"`
	ReadyReplicas      int    `json:"readyReplicas"`
	AvailableReplicas  int    `json:"availableReplicas"`
	CurrentRevision    string `json:"currentRevision"`
	UpdateRevision     string `json:"updateRevision"`
	ObservedGeneration int64  `json:"observedGeneration"`
	Paused             bool   `json:"paused,omitempty"`
	// Stopped: the set is stopped (ostset stop) until ostset start.
	Stopped    bool              `json:"stopped,omitempty"`
	Conditions []Condition       `json:"conditions,omitempty"`
	Containers []ContainerStatus `json:"containers"`
	// Conflicts names containers that hold a replica's name without belonging to
	// the set, and the set's containers and volumes that another state directory owns.
	Conflicts []string `json:"conflicts,omitempty"`
	// ConflictDetails explains each conflict: who holds it and the way out.
	ConflictDetails []Conflict `json:"conflictDetails,omitempty"`
	// Initializing lists the ordinals whose init containers run, before their
	// replica container exists.
	Initializing []InitStatus `json:"initializing,omitempty"`
	// Pending lists the desired ordinals that have neither a replica
	// container nor init containers, as kubectl lists a pod that is Pending.
	Pending []PendingReplica `json:"pending,omitempty"`
	// Waiting says what the controller waits for.
	Waiting []string `json:"waiting,omitempty"`
	// Deleting: ostset down started and has not finished.
	Deleting *DeleteIntent `json:"deleting,omitempty"`
}

// ReadyByProbe is ContainerStatus.ReadyBy for a replica made ready by
// ostset's own probe of its healthcheck.
const ReadyByProbe = "probe"

// ContainerStatus is one replica as observed.
type ContainerStatus struct {
	Name     string `json:"name"`
	Ordinal  int    `json:"ordinal"`
	Revision string `json:"revision"`
	State    string `json:"state"`
	Health   string `json:"health"`
	Ready    bool   `json:"ready"`
	// Stopped: the replica's container is kept stopped by ostset stop (or,
	// after ostset start, waits to be started again).
	Stopped bool `json:"stopped,omitempty"`
	// ReadyBy says where readiness came from when it is not the engine's own
	// status: "probe" while ostset's run of the healthcheck passed and the
	// engine still says starting.
	ReadyBy string `json:"readyBy,omitempty"`
	ID      string `json:"id"`
	// Created is when the container was created.
	Created time.Time `json:"created"`
	// Reason is, for a replica that is not ready, why in short ("exit 1, 3
	// restarts", `health: "connection refused"`), and NotReady all that is known.
	Reason   string          `json:"reason,omitempty"`
	NotReady *NotReadyDetail `json:"notReady,omitempty"`
	// RemovalPending is when a pass recorded that it removes this replica
	// (State.Removing), while the removal is not done: the container may be
	// stopping, and the next pass of any process removes it.
	RemovalPending *time.Time `json:"removalPending,omitempty"`
	// CrashLoop is set while the replica exited and its recreation is held
	// back by the crash-loop back-off (Kubernetes' CrashLoopBackOff).
	CrashLoop *CrashLoopStatus `json:"crashLoop,omitempty"`
	// Restarts is how often ostset restarted the container in place for a
	// failed liveness or startup probe (Kubernetes' RESTARTS of a pod).
	Restarts int `json:"restarts,omitempty"`
}

// CrashLoopStatus is a failed replica's crash-loop back-off.
type CrashLoopStatus struct {
	// Recreations is how many times in a row the ordinal was recreated after
	// a failure.
	Recreations int `json:"recreations"`
	// NextTry is when the replica is recreated.
	NextTry time.Time `json:"nextTry"`
}

// status counts what is observed. Replicas is the desired count; the counters
// cover containers that exist, as Kubernetes counts pods.
func (p *planner) status() Status {
	s := Status{
		Name:            p.set.Name,
		Replicas:        p.set.DesiredReplicas(),
		CurrentRevision: p.in.CurrentRevision,
		UpdateRevision:  p.in.UpdateRevision,
		Paused:          p.in.Paused,
		Stopped:         p.in.Stopped,
		Containers:      make([]ContainerStatus, 0, len(p.in.Observed.Replicas)),
	}
	for i := range p.in.Observed.Replicas {
		r := &p.in.Observed.Replicas[i]
		ready := p.ready(r)
		cs := ContainerStatus{
			Name: r.Name, Ordinal: r.Ordinal, Revision: r.Revision,
			State: r.State, Health: r.Health, Ready: ready, ID: ShortID(r.ID), Created: r.Created,
			Restarts: r.Restarts,
		}
		if !ready {
			cs.Reason, cs.NotReady = r.Reason(), r.NotReady
		} else if r.Health == HealthStarting && r.Probed {
			cs.ReadyBy = ReadyByProbe
		}
		if p.stoppedByCommand(r) || p.in.Stopped && (r.State == StateExited || r.State == StateCreated) {
			cs.Stopped, cs.Reason = true, "stopped (ostset stop)"
		}
		if after := p.heldUntil(r.Ordinal, p.revisionFor(r.Ordinal)); health.Failed(hc(r)) && !after.IsZero() {
			cs.CrashLoop = &CrashLoopStatus{NextTry: after}
		}
		s.Containers = append(s.Containers, cs)
		// A replica being removed is neither current nor updated, as
		// Kubernetes leaves a terminating pod out of both counts: it is
		// going, whatever its revision.
		if r.Revision == p.in.CurrentRevision && r.State != StateRemoving {
			s.CurrentReplicas++
		}
		if r.Revision == p.in.UpdateRevision && r.State != StateRemoving {
			s.UpdatedReplicas++
		}
		if ready {
			s.ReadyReplicas++
		}
		if p.available(r) {
			s.AvailableReplicas++
		}
	}
	s.Conflicts, s.ConflictDetails = conflicts(p.set.Name, p.in.Observed)
	s.Initializing = p.initStatuses()
	s.Pending = p.pending(s.Initializing)
	return s
}

// PendingReplica is a desired ordinal without a container.
type PendingReplica struct {
	Name    string `json:"name"`
	Ordinal int    `json:"ordinal"`
	// Reason says why it does not exist: not created yet, or the engine's
	// words for why it cannot be (State.Failures).
	Reason string `json:"reason"`
	// Failed: the reason is a failure the engine gave, not a wait.
	Failed bool `json:"failed,omitempty"`
	// FailedAt is when the engine last refused it, and RetryAt when it is
	// tried again (zero: at the next pass): the reason is as of FailedAt
	// (the holder of a port may be gone since).
	FailedAt time.Time `json:"failedAt,omitzero"`
	RetryAt  time.Time `json:"retryAt,omitzero"`
}

// pending lists the desired ordinals that have no replica container and are
// not initializing.
func (p *planner) pending(initializing []InitStatus) []PendingReplica {
	var out []PendingReplica
	for ord := p.start; ord < p.end; ord++ {
		if p.byOrdinal.has(ord) || slices.ContainsFunc(initializing, func(s InitStatus) bool { return s.Ordinal == ord }) {
			continue
		}
		reason := "not created yet"
		if p.in.Stopped {
			reason = "not created: the set is stopped (ostset start)"
		}
		out = append(out, PendingReplica{Name: ReplicaName(p.set.Name, ord), Ordinal: ord, Reason: reason})
	}
	return out
}

// Condition is a Kubernetes-style status condition.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"` // True, False, Unknown
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// DeleteIntent is a started delete of a set.
type DeleteIntent struct {
	Volumes bool `json:"volumes"` // remove the per-ordinal volumes too
}
