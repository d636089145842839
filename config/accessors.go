package config

import "time"

// These accessors read a Set as ostset runs it: on a Set without defaults
// they answer with the defaults.

// DesiredReplicas is spec.replicas.
func (s Set) DesiredReplicas() int {
	if s.Replicas == nil {
		return 1
	}
	return *s.Replicas
}

// MaxUnavailableCount is how many replicas a rolling update may take down at
// once: maxUnavailable resolved against the replica count (percentages round
// down), at least 1 so that a rollout always makes progress.
func (s Set) MaxUnavailableCount() int {
	v := s.UpdateStrategy.RollingUpdate.MaxUnavailable
	if v == "" {
		v = DefaultMaxUnavailable
	}
	n, err := v.Resolve(s.DesiredReplicas())
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// HistoryLimit is how many old revisions to keep.
func (s Set) HistoryLimit() int {
	if s.RevisionHistoryLimit == nil {
		return DefaultRevisionHistoryLimit
	}
	return *s.RevisionHistoryLimit
}

// GracePeriod is how long a replica gets between SIGTERM and SIGKILL.
func (s Set) GracePeriod() time.Duration {
	if s.TerminationGracePeriodSeconds == nil {
		return DefaultGracePeriodSeconds * time.Second
	}
	return time.Duration(*s.TerminationGracePeriodSeconds) * time.Second
}

// Partition is the lowest ordinal a rolling update touches; 0 under OnDelete,
// where the partition has no meaning.
func (s Set) Partition() int {
	if s.UpdateStrategy.Type != RollingUpdate && s.UpdateStrategy.Type != "" {
		return 0
	}
	return s.UpdateStrategy.RollingUpdate.Partition
}

// FirstOrdinal is the ordinal of the first replica.
func (s Set) FirstOrdinal() int { return s.Ordinals.Start }

// EndOrdinal is one past the ordinal of the last replica: the set's ordinals
// are FirstOrdinal() <= i < EndOrdinal().
func (s Set) EndOrdinal() int { return s.Ordinals.Start + s.DesiredReplicas() }

// ProgressDeadline is how long a rollout may go without progress.
func (s Set) ProgressDeadline() time.Duration {
	if s.UpdateStrategy.ProgressDeadlineSeconds == nil {
		return DefaultProgressDeadlineSeconds * time.Second
	}
	return time.Duration(*s.UpdateStrategy.ProgressDeadlineSeconds) * time.Second
}

// PullPolicy is template.imagePullPolicy, IfNotPresent when not given. Unlike
// Kubernetes, a ":latest" or untagged reference does not default to Always:
// on a single Docker host an image is often built locally under such a tag,
// and Always would make ostset look for it in a registry.
func (t Template) PullPolicy() string {
	if t.ImagePullPolicy == "" {
		return PullIfNotPresent
	}
	return t.ImagePullPolicy
}
