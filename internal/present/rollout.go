package present

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// RolloutLine says where a rollout stands, in kubectl's words (rollout
// status), for a set with spec, paused or not, as planned in pl.
func RolloutLine(spec config.Set, paused bool, pl plan.Plan) string {
	s := pl.Status
	if paused && pl.Complete {
		return fmt.Sprintf("rollout paused: %d of %d pods at revision %s", s.UpdatedReplicas, s.Replicas, s.UpdateRevision)
	}
	if pl.Complete {
		switch {
		case spec.UpdateStrategy.Type == config.OnDelete:
			return fmt.Sprintf("roll out complete: %d pods ready (OnDelete: %d at revision %s)", s.ReadyReplicas, s.UpdatedReplicas, s.UpdateRevision)
		case spec.UpdateStrategy.Type == config.Recreate:
			return fmt.Sprintf("statefulset recreate complete %d pods at revision %s...", s.UpdatedReplicas, s.UpdateRevision)
		case spec.Partition() > spec.FirstOrdinal():
			return fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...", s.UpdatedReplicas)
		}
		return fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...", s.UpdatedReplicas, s.UpdateRevision)
	}
	if spec.UpdateStrategy.Type == config.Recreate {
		if old := OldRevisionReplicas(s); old > 0 {
			return fmt.Sprintf("Waiting for %d pods of older revisions to be removed before revision %s is created (Recreate)...", old, s.UpdateRevision)
		}
	}
	if s.ReadyReplicas < s.Replicas {
		return fmt.Sprintf("Waiting for %d pods to be ready...", s.Replicas-s.ReadyReplicas)
	}
	if spec.UpdateStrategy.Type == config.RollingUpdate && spec.Partition() > spec.FirstOrdinal() {
		want := max(0, spec.EndOrdinal()-max(spec.Partition(), spec.FirstOrdinal()))
		return fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...", s.UpdatedReplicas, want)
	}
	return fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...", s.UpdatedReplicas, s.UpdateRevision)
}

// OldRevisionReplicas counts the replicas of s at a revision other than the
// update revision.
func OldRevisionReplicas(s plan.Status) int {
	n := 0
	for _, c := range s.Containers {
		if c.Revision != s.UpdateRevision {
			n++
		}
	}
	return n
}
