package state

import (
	"fmt"
	"slices"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// ProgressMark records how far a rollout had got, and when.
type ProgressMark struct {
	Revision string    `json:"revision"`
	Ready    int       `json:"ready"` // replicas ready at Revision
	At       time.Time `json:"at"`
	// Seen is the last pass that watched the rollout in progress: the deadline
	// counts only time during which a controller watched (see TrackProgress).
	Seen time.Time `json:"seen,omitzero"`
	// Late: the deadline passed (and was reported) for this mark.
	Late bool `json:"late,omitempty"`
}

// Undo makes an earlier revision the update revision again: the newest revision
// before the current update revision, or number toRevision (>0). The desired spec
// takes that revision's template.
func (st *State) Undo(toRevision int, cause string, now time.Time) (Revision, error) {
	var target Revision
	found := false
	for _, r := range st.Revisions {
		switch {
		case toRevision > 0 && r.Number == toRevision:
			target, found = r, true
		case toRevision == 0 && r.Name != st.UpdateRevision && (!found || r.Number > target.Number):
			target, found = r, true
		}
	}
	if !found {
		if toRevision > 0 {
			return Revision{}, fmt.Errorf("set %s has no revision %d", st.Spec.Name, toRevision)
		}
		return Revision{}, fmt.Errorf("set %s has no earlier revision to roll back to", st.Spec.Name)
	}
	st.adopt(target.Spec, cause, now)
	return target, nil
}

// Restart rolls every replica without changing the template: a new revision that
// differs from the update revision only by its restart stamp.
func (st *State) Restart(cause string, now time.Time) (Revision, error) {
	cur, ok := st.Revision(st.UpdateRevision)
	if !ok {
		return Revision{}, fmt.Errorf("set %s has no update revision", st.Spec.Name)
	}
	spec := cur.Spec
	spec.RestartedAt = now.UTC().Format(time.RFC3339Nano)
	st.adopt(spec, cause, now)
	r, _ := st.Revision(st.UpdateRevision)
	return r, nil
}

// adopt makes spec the update revision and the desired template.
func (st *State) adopt(spec config.RevisionSpec, cause string, now time.Time) {
	st.Spec.Template = spec.Template
	st.Spec.VolumeClaimTemplates = spec.VolumeClaimTemplates
	st.Spec.ServiceName = spec.ServiceName
	st.Spec.Network = spec.Network
	st.Spec.Networks = spec.Networks
	if st.SetUpdateRevision(spec, cause, now) {
		st.Generation++
	}
}

// TrackProgress notes progress of the rollout to the update revision and reports
// whether its progress deadline has just passed. Progress is a new update revision
// or more replicas ready at it than ever before; a paused or complete rollout is
// never late.
//
// The deadline counts only time during which a controller watched the rollout:
// when no pass ran for longer than gap (no ostset process was running, say), that
// stretch is added to the mark, so a rollout interrupted and resumed later is not
// failed for the time nobody worked on it.
func (st *State) TrackProgress(pl plan.Plan, now time.Time, gap time.Duration) (late bool) {
	ready := 0
	for _, c := range pl.Status.Containers {
		if c.Revision == st.UpdateRevision && c.Ready {
			ready++
		}
	}
	if st.Progress.Revision != st.UpdateRevision || ready > st.Progress.Ready {
		st.Progress = ProgressMark{Revision: st.UpdateRevision, Ready: ready, At: now, Seen: now}
		return false
	}
	if pl.Complete || st.Paused || st.Progress.Late {
		return false
	}
	if away := now.Sub(st.Progress.Seen); !st.Progress.Seen.IsZero() && away > gap {
		st.Progress.At = st.Progress.At.Add(away)
	}
	st.Progress.Seen = now
	if now.Sub(st.Progress.At) <= st.Spec.ProgressDeadline() {
		return false
	}
	st.Progress.Late = true
	return true
}

// ReopenProgress starts the progress deadline over for a new command: each
// change (up, scale, recreate, the rollout commands), also one that does not
// wait and leaves the rollout to a daemon, and each wait (see
// Controller.beginWait: reconcile and rollout status change nothing). The next pass takes a new mark from what it
// observes (an empty mark is of no revision), so a deadline an earlier wait missed does not fail this one, and
// a rollout that stays stuck is marked late again, and rolled back if it can
// be, one deadline later. A mark of an older revision needs nothing: the next
// pass replaces it. It reports whether it changed anything.
func (st *State) ReopenProgress() bool {
	if st.Progress.Revision != st.UpdateRevision {
		return false
	}
	st.Progress = ProgressMark{}
	return true
}

// AutoRollback rolls a late rollout back to the current revision (the last one
// every replica reached) when the update strategy asks for it. It reports the
// revision it rolled back to, if any.
func (st *State) AutoRollback(now time.Time) (string, bool) {
	if !st.Spec.UpdateStrategy.AutoRollback || st.CurrentRevision == st.UpdateRevision || st.RollingBackFrom != "" {
		return "", false
	}
	target, ok := st.Revision(st.CurrentRevision)
	if !ok {
		return "", false
	}
	from := st.UpdateRevision
	st.adopt(target.Spec, fmt.Sprintf("automatic rollback: %s made no progress for %s", from, st.Spec.ProgressDeadline()), now)
	st.RollingBackFrom = from
	st.LastRollback = &RollbackRecord{From: from, To: target.Name, At: now}
	return target.Name, true
}

// Conditions derives the set's conditions from its state and the latest plan.
func Conditions(st State, pl plan.Plan, now time.Time) []plan.Condition {
	s := pl.Status
	avail := plan.Condition{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable"}
	if s.AvailableReplicas < s.Replicas {
		avail.Status, avail.Reason = "False", "MinimumReplicasUnavailable"
		avail.Message = fmt.Sprintf("%d of %d replicas available", s.AvailableReplicas, s.Replicas)
	}
	prog := plan.Condition{Type: "Progressing", Status: "True", Reason: "RolloutInProgress"}
	switch {
	case pl.Complete:
		prog.Reason = "RolloutComplete"
		prog.Message = fmt.Sprintf("revision %s rolled out", st.UpdateRevision)
	case st.Paused:
		prog.Status, prog.Reason = "Unknown", "RolloutPaused"
	case st.Progress.Late:
		prog.Status, prog.Reason = "False", "ProgressDeadlineExceeded"
		prog.Message = fmt.Sprintf("rollout to %s made no progress for %s", st.UpdateRevision, st.Spec.ProgressDeadline())
	case st.Spec.UpdateStrategy.Type == config.Recreate: // Kubernetes' reason and messages
		prog.Reason, prog.Message = "RecreateInProgress", "Waiting for new-revision pods to be created"
		if oldRevisionReplicas(s) > 0 {
			prog.Message = "Deleting old revision pods"
		}
	}
	conds := []plan.Condition{avail, prog}
	if st.RollingBackFrom != "" {
		conds = append(conds, plan.Condition{Type: "RollbackInProgress", Status: "True", Reason: "AutoRollback",
			Message: fmt.Sprintf("rolling back from %s to %s", st.RollingBackFrom, st.UpdateRevision)})
	}
	return conds
}

// History returns the revisions by number, oldest first.
func (st *State) History() []Revision {
	h := slices.Clone(st.Revisions)
	slices.SortFunc(h, func(a, b Revision) int { return a.Number - b.Number })
	return h
}
