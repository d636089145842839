package config

import (
	"maps"
	"slices"
)

// Defaults for fields the set file leaves out.
const (
	DefaultNetwork                 = "ostset"
	DefaultMaxUnavailable          = "1"
	DefaultRevisionHistoryLimit    = 10
	DefaultGracePeriodSeconds      = 10
	DefaultProgressDeadlineSeconds = 600
	DefaultRestartPolicy           = "unless-stopped"
	DefaultProtocol                = "tcp"
	DefaultVolumeDriver            = "local"
)

// ApplyDefaults fills every field left empty. Afterwards Replicas,
// RevisionHistoryLimit and TerminationGracePeriodSeconds are non-nil.
// Template.Healthcheck stays nil when not given: nil means "keep the image's
// HEALTHCHECK", which is not the same as any healthcheck we could write.
func (s *Set) ApplyDefaults() {
	if s.Replicas == nil {
		s.Replicas = ptr(1)
	}
	if s.ServiceName == "" {
		s.ServiceName = s.Name
	}
	if s.Network == "" && len(s.Networks) > 0 {
		s.Network = s.Networks[0].Name
	}
	if s.Network == "" {
		s.Network = DefaultNetwork
	}
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = OrderedReady
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = RollingUpdate
	}
	if s.UpdateStrategy.RollingUpdate.MaxUnavailable == "" {
		s.UpdateStrategy.RollingUpdate.MaxUnavailable = DefaultMaxUnavailable
	}
	if s.UpdateStrategy.ProgressDeadlineSeconds == nil {
		s.UpdateStrategy.ProgressDeadlineSeconds = ptr(DefaultProgressDeadlineSeconds)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(DefaultRevisionHistoryLimit)
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = Retain
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = Retain
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr(DefaultGracePeriodSeconds)
	}
	s.Template.applyDefaults()
	for i := range s.VolumeClaimTemplates {
		if s.VolumeClaimTemplates[i].Driver == "" {
			s.VolumeClaimTemplates[i].Driver = DefaultVolumeDriver
		}
	}
}

func (t *Template) applyDefaults() {
	if t.RestartPolicy == "" {
		t.RestartPolicy = DefaultRestartPolicy
	}
	for i := range t.Ports {
		if t.Ports[i].Protocol == "" {
			t.Ports[i].Protocol = DefaultProtocol
		}
	}
}

func ptr[T any](v T) *T { return &v }

// Clone returns a deep copy, so that defaults can be applied or fields
// expanded without touching the caller's slices and maps.
func (s Set) Clone() Set {
	if s.Replicas != nil {
		s.Replicas = ptr(*s.Replicas)
	}
	if s.RevisionHistoryLimit != nil {
		s.RevisionHistoryLimit = ptr(*s.RevisionHistoryLimit)
	}
	if s.TerminationGracePeriodSeconds != nil {
		s.TerminationGracePeriodSeconds = ptr(*s.TerminationGracePeriodSeconds)
	}
	s.Template = s.Template.clone()
	s.Networks = cloneNetworks(s.Networks)
	s.VolumeClaimTemplates = cloneClaims(s.VolumeClaimTemplates)
	s.Kubernetes = s.Kubernetes.clone()
	return s
}

func (t Template) clone() Template {
	t.Command = slices.Clone(t.Command)
	t.Args = slices.Clone(t.Args)
	t.Env, t.EnvRefs = maps.Clone(t.Env), maps.Clone(t.EnvRefs)
	t.Labels = maps.Clone(t.Labels)
	t.Ports = slices.Clone(t.Ports)
	t.VolumeMounts = slices.Clone(t.VolumeMounts)
	t.InitContainers = cloneInits(t.InitContainers)
	t.Lifecycle = t.Lifecycle.Clone()
	if r := t.Resources.Reservations; r != nil {
		c := *r // one level: a reservation has no reservations (validate)
		t.Resources.Reservations = &c
	}
	t.Healthcheck, t.Liveness, t.Startup = t.Healthcheck.clone(), t.Liveness.clone(), t.Startup.clone()
	t.cloneSettings()
	return t
}

func (h *Healthcheck) clone() *Healthcheck {
	if h == nil {
		return nil
	}
	c := *h
	c.Test = slices.Clone(h.Test)
	return &c
}

// cloneSettings gives t its own copies of the container settings.
func (t *Template) cloneSettings() {
	t.Ulimits = maps.Clone(t.Ulimits)
	t.Sysctls = maps.Clone(t.Sysctls)
	t.Tmpfs = slices.Clone(t.Tmpfs)
	t.CapAdd = slices.Clone(t.CapAdd)
	t.CapDrop = slices.Clone(t.CapDrop)
	t.ExtraHosts = slices.Clone(t.ExtraHosts)
	if t.Init != nil {
		t.Init = ptr(*t.Init)
	}
}

func cloneClaims(claims []VolumeClaimTemplate) []VolumeClaimTemplate {
	claims = slices.Clone(claims)
	for i := range claims {
		claims[i].DriverOpts = maps.Clone(claims[i].DriverOpts)
	}
	return claims
}
