// Package config holds the set file model: strict decoding with line numbers,
// environment interpolation, defaults, validation and the revision hash.
// Other formats translate into it from outside (package kube reads
// Kubernetes manifests through Loader.Manifests); config imports none of
// them, nor the engine or the Docker SDK.
package config

import (
	"time"

	"github.com/ostset/ostset/config/envref"
	"github.com/ostset/ostset/config/lifecycle"
	"github.com/ostset/ostset/config/scalars"
)

// Pod management policies.
const (
	OrderedReady = "OrderedReady"
	Parallel     = "Parallel"
)

// Update strategy types.
const (
	RollingUpdate = "RollingUpdate"
	OnDelete      = "OnDelete"
	// Recreate removes every replica of an older revision before any of the
	// update revision is created (Kubernetes 1.37, alpha).
	Recreate = "Recreate"
)

// Image pull policies (template.imagePullPolicy), with Kubernetes' meaning.
const (
	PullIfNotPresent = "IfNotPresent" // pull only when the image is not present locally (the default)
	PullAlways       = "Always"       // pull at every ostset up: the registry's image wins
	PullNever        = "Never"        // never pull: the image must be present locally
)

// Retention policy values.
const (
	Retain = "Retain"
	Delete = "Delete"
)

// Set is one StatefulSet-like replica set, after defaults are applied.
type Set struct {
	Name        string `yaml:"name" json:"name"`
	Replicas    *int   `yaml:"replicas" json:"replicas"`
	ServiceName string `yaml:"serviceName" json:"serviceName"`
	Network     string `yaml:"network" json:"network"`
	// Networks, when given, are all the networks the replicas join, Network
	// first, each with DNS aliases of its own (see NetworkAttachment).
	Networks                             []NetworkAttachment   `yaml:"networks" json:"networks,omitempty"`
	PodManagementPolicy                  string                `yaml:"podManagementPolicy" json:"podManagementPolicy"`
	UpdateStrategy                       UpdateStrategy        `yaml:"updateStrategy" json:"updateStrategy"`
	MinReadySeconds                      int                   `yaml:"minReadySeconds" json:"minReadySeconds"`
	RevisionHistoryLimit                 *int                  `yaml:"revisionHistoryLimit" json:"revisionHistoryLimit"`
	Ordinals                             Ordinals              `yaml:"ordinals" json:"ordinals"`
	PersistentVolumeClaimRetentionPolicy RetentionPolicy       `yaml:"persistentVolumeClaimRetentionPolicy" json:"persistentVolumeClaimRetentionPolicy"`
	TerminationGracePeriodSeconds        *int                  `yaml:"terminationGracePeriodSeconds" json:"terminationGracePeriodSeconds"`
	Template                             Template              `yaml:"template" json:"template"`
	VolumeClaimTemplates                 []VolumeClaimTemplate `yaml:"volumeClaimTemplates" json:"volumeClaimTemplates,omitempty"`
	// Kubernetes keeps the names an imported manifest gave, for export (see
	// KubernetesNames).
	Kubernetes *KubernetesNames `yaml:"kubernetes" json:"kubernetes,omitempty"`

	// Source is "file:line" of the document the set came from (not part of the file format).
	Source string `yaml:"-" json:"source,omitempty"`
	// Written holds the paths of the fields the file wrote ("replicas",
	// "updateStrategy.rollingUpdate.partition"), so that a field the file
	// leaves out can keep a value a command set. Nil for a set not read from a file.
	Written map[string]bool `yaml:"-" json:"-"`
	// Lines holds the line of each field the file wrote, by the same paths,
	// for problems found across sets (CheckSets). Nil for a set not read
	// from a file.
	Lines map[string]int `yaml:"-" json:"-"`
}

// UpdateStrategy says how replicas move to a new revision.
type UpdateStrategy struct {
	Type          string              `yaml:"type" json:"type"`
	RollingUpdate RollingUpdateParams `yaml:"rollingUpdate" json:"rollingUpdate"`
	// ProgressDeadlineSeconds: a rollout that makes no progress for this long is
	// marked failed (condition Progressing=False, ProgressDeadlineExceeded).
	ProgressDeadlineSeconds *int `yaml:"progressDeadlineSeconds" json:"progressDeadlineSeconds,omitempty"`
	// AutoRollback rolls a failed rollout back to the last complete revision.
	AutoRollback bool `yaml:"autoRollback" json:"autoRollback,omitempty"`
}

// RollingUpdateParams are the rollingUpdate parameters.
type RollingUpdateParams struct {
	Partition int `yaml:"partition" json:"partition"`
	// MaxUnavailable is an integer ("2") or a percentage ("25%") of replicas; default "1".
	MaxUnavailable IntOrPercent `yaml:"maxUnavailable" json:"maxUnavailable"`
}

// IntOrPercent is "N" or "N%" (scalars.IntOrPercent).
type IntOrPercent = scalars.IntOrPercent

// Ordinals sets the first ordinal.
type Ordinals struct {
	Start int `yaml:"start" json:"start"`
}

// RetentionPolicy says what happens to per-ordinal volumes.
type RetentionPolicy struct {
	WhenDeleted string `yaml:"whenDeleted" json:"whenDeleted"`
	WhenScaled  string `yaml:"whenScaled" json:"whenScaled"`
}

// Template is the replica container.
type Template struct {
	Image   string            `yaml:"image" json:"image"`
	Command []string          `yaml:"command" json:"command,omitempty"`
	Args    []string          `yaml:"args" json:"args,omitempty"`
	Env     map[string]string `yaml:"env" json:"env,omitempty"`
	// EnvRefs are variables whose values are keys of a manifest's Secrets
	// and ConfigMaps, kept out of the set (see package envref).
	EnvRefs     map[string]envref.Ref `yaml:"envRefs,omitempty" json:"envRefs,omitempty"`
	WorkingDir  string                `yaml:"workingDir" json:"workingDir,omitempty"`
	User        string                `yaml:"user" json:"user,omitempty"`
	Labels      map[string]string     `yaml:"labels" json:"labels,omitempty"`
	Ports       []Port                `yaml:"ports" json:"ports,omitempty"`
	Healthcheck *Healthcheck          `yaml:"healthcheck" json:"healthcheck,omitempty"`
	// Liveness and Startup are run by ostset, not by the engine (Kubernetes'
	// livenessProbe and startupProbe): Liveness failing Retries times in a
	// row restarts the container in place; until Startup passes the replica
	// is not ready and Liveness is not run (see docs/set-file.md).
	Liveness      *Healthcheck  `yaml:"liveness" json:"liveness,omitempty"`
	Startup       *Healthcheck  `yaml:"startup" json:"startup,omitempty"`
	VolumeMounts  []VolumeMount `yaml:"volumeMounts" json:"volumeMounts,omitempty"`
	Resources     Resources     `yaml:"resources" json:"resources"`
	RestartPolicy string        `yaml:"restartPolicy" json:"restartPolicy,omitempty"`

	// ImagePullPolicy stays empty when not written (PullPolicy gives the
	// default), so that a set stored before the field existed reads the same.
	ImagePullPolicy string `yaml:"imagePullPolicy" json:"imagePullPolicy,omitempty"`

	// Container settings, with docker compose's names and meanings (see
	// settings.go). Empty means the engine's default.
	StopSignal string            `yaml:"stopSignal" json:"stopSignal,omitempty"`
	ShmSize    string            `yaml:"shmSize" json:"shmSize,omitempty"`
	Ulimits    map[string]Ulimit `yaml:"ulimits" json:"ulimits,omitempty"`
	Sysctls    map[string]string `yaml:"sysctls" json:"sysctls,omitempty"`
	Tmpfs      []string          `yaml:"tmpfs" json:"tmpfs,omitempty"`
	CapAdd     []string          `yaml:"capAdd" json:"capAdd,omitempty"`
	CapDrop    []string          `yaml:"capDrop" json:"capDrop,omitempty"`
	Init       *bool             `yaml:"init" json:"init,omitempty"`
	ExtraHosts []string          `yaml:"extraHosts" json:"extraHosts,omitempty"`
	// InitContainers run in order, each to completion, before every new replica
	// container starts (see InitContainer).
	InitContainers []InitContainer `yaml:"initContainers" json:"initContainers,omitempty"`
	// Lifecycle are the commands run in the container after it starts and
	// before it stops (see Lifecycle).
	Lifecycle *Lifecycle `yaml:"lifecycle" json:"lifecycle,omitempty"`
}

// Lifecycle are a replica's hooks (see package lifecycle), and Hook one of them.
type (
	Lifecycle = lifecycle.Lifecycle
	Hook      = lifecycle.Hook
)

// Port publishes containerPort on hostPort+ordinal-offset.
type Port struct {
	ContainerPort int    `yaml:"containerPort" json:"containerPort"`
	HostPort      int    `yaml:"hostPort" json:"hostPort,omitempty"`
	HostIP        string `yaml:"hostIP" json:"hostIP,omitempty"`
	Protocol      string `yaml:"protocol" json:"protocol,omitempty"`
}

// Healthcheck overrides the image HEALTHCHECK. Test ["NONE"] disables it.
type Healthcheck struct {
	Test        []string `yaml:"test" json:"test"`
	Interval    Duration `yaml:"interval" json:"interval,omitempty"`
	Timeout     Duration `yaml:"timeout" json:"timeout,omitempty"`
	Retries     int      `yaml:"retries" json:"retries,omitempty"`
	StartPeriod Duration `yaml:"startPeriod" json:"startPeriod,omitempty"`
	// StartInterval is the interval during the start period; it needs the
	// engine's API 1.44 (Docker 25).
	StartInterval Duration `yaml:"startInterval,omitempty" json:"startInterval,omitempty"`
}

// Duration is a time.Duration written as "2s" in YAML and JSON.
type Duration time.Duration

// VolumeMount is a shared named volume or a bind mount (same for every ordinal).
type VolumeMount struct {
	Source   string `yaml:"source" json:"source"`
	Target   string `yaml:"target" json:"target"`
	ReadOnly bool   `yaml:"readOnly" json:"readOnly,omitempty"`
}

// Resources limits the replica container.
type Resources struct {
	CPUs   string `yaml:"cpus" json:"cpus,omitempty"`
	Memory string `yaml:"memory" json:"memory,omitempty"`
	// Reservations are Docker's memory reservation and CPU shares (1024 a CPU): Kubernetes' requests.
	Reservations *Resources `yaml:"reservations,omitempty" json:"reservations,omitempty"`
}

// VolumeClaimTemplate makes one Docker named volume per ordinal.
type VolumeClaimTemplate struct {
	Name       string            `yaml:"name" json:"name"`
	MountPath  string            `yaml:"mountPath" json:"mountPath"`
	Driver     string            `yaml:"driver" json:"driver,omitempty"`
	DriverOpts map[string]string `yaml:"driverOpts" json:"driverOpts,omitempty"`
	// Owner is "UID:GID" given to the volume's root directory when the volume
	// is new (see docs/set-file.md), as Kubernetes' fsGroup makes a volume
	// writable by a replica that does not run as root.
	Owner string `yaml:"owner" json:"owner,omitempty"`
	// NoCopy: a new volume starts empty, as a Kubernetes claim does, instead
	// of Docker copying in the image's files at the mount path.
	NoCopy bool `yaml:"nocopy" json:"nocopy,omitempty"`
}
