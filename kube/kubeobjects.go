package kube

// The Kubernetes objects export writes, with the field names and order of
// apps/v1 and core/v1, and only the fields it fills. The tests decode what
// is written strictly with the upstream types, which the product does not
// link.

import (
	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

type kubeObject struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   kubeMeta `yaml:"metadata"`
	Spec       any      `yaml:"spec"`
}

type kubeMeta struct {
	Name        string            `yaml:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

type kubeStatefulSetSpec struct {
	ServiceName                          string                 `yaml:"serviceName"`
	Replicas                             int                    `yaml:"replicas"`
	Ordinals                             *kubeOrdinals          `yaml:"ordinals,omitempty"`
	PodManagementPolicy                  string                 `yaml:"podManagementPolicy"`
	UpdateStrategy                       kubeUpdateStrategy     `yaml:"updateStrategy"`
	MinReadySeconds                      int                    `yaml:"minReadySeconds,omitempty"`
	RevisionHistoryLimit                 *int                   `yaml:"revisionHistoryLimit,omitempty"`
	PersistentVolumeClaimRetentionPolicy config.RetentionPolicy `yaml:"persistentVolumeClaimRetentionPolicy"`
	Selector                             kubeSelector           `yaml:"selector"`
	Template                             kubePodTemplate        `yaml:"template"`
	VolumeClaimTemplates                 []kubeClaim            `yaml:"volumeClaimTemplates,omitempty"`
}

type kubeOrdinals struct {
	Start int `yaml:"start"`
}

type kubeUpdateStrategy struct {
	Type          string             `yaml:"type"`
	RollingUpdate *kubeRollingUpdate `yaml:"rollingUpdate,omitempty"`
}

type kubeRollingUpdate struct {
	Partition      int `yaml:"partition"`
	MaxUnavailable any `yaml:"maxUnavailable,omitempty"` // an int or a "N%" string
}

type kubeSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type kubePodTemplate struct {
	Metadata kubeMeta    `yaml:"metadata"`
	Spec     kubePodSpec `yaml:"spec"`
}

type kubePodSpec struct {
	TerminationGracePeriodSeconds *int             `yaml:"terminationGracePeriodSeconds,omitempty"`
	SecurityContext               *kubePodSecurity `yaml:"securityContext,omitempty"`
	InitContainers                []kubeContainer  `yaml:"initContainers,omitempty"`
	Containers                    []kubeContainer  `yaml:"containers"`
	Volumes                       []kubeVolume     `yaml:"volumes,omitempty"`
	// Carried are the fields of an imported manifest ostset does not apply, as written.
	Carried map[string]*yaml.Node `yaml:",inline"`
}

type kubePodSecurity struct {
	RunAsUser  *int64 `yaml:"runAsUser,omitempty"`
	RunAsGroup *int64 `yaml:"runAsGroup,omitempty"`
	FSGroup    *int64 `yaml:"fsGroup,omitempty"`
}

type kubeContainer struct {
	Name            string                 `yaml:"name"`
	Image           string                 `yaml:"image"`
	ImagePullPolicy string                 `yaml:"imagePullPolicy,omitempty"`
	Command         []string               `yaml:"command,omitempty"`
	Args            []string               `yaml:"args,omitempty"`
	WorkingDir      string                 `yaml:"workingDir,omitempty"`
	Env             []kubeEnv              `yaml:"env,omitempty"`
	Ports           []kubeContainerPort    `yaml:"ports,omitempty"`
	Resources       *kubeResources         `yaml:"resources,omitempty"`
	VolumeMounts    []kubeVolumeMount      `yaml:"volumeMounts,omitempty"`
	ReadinessProbe  *kubeProbe             `yaml:"readinessProbe,omitempty"`
	SecurityContext *kubeContainerSecurity `yaml:"securityContext,omitempty"`
	Carried         map[string]*yaml.Node  `yaml:",inline"` // as kubePodSpec's
}

type kubeEnv struct {
	Name      string       `yaml:"name"`
	Value     string       `yaml:"value,omitempty"`
	ValueFrom *kubeEnvFrom `yaml:"valueFrom,omitempty"`
}

type kubeEnvFrom struct {
	FieldRef        *kubeFieldRef `yaml:"fieldRef,omitempty"`
	ConfigMapKeyRef *kubeKeyRef   `yaml:"configMapKeyRef,omitempty"`
	SecretKeyRef    *kubeKeyRef   `yaml:"secretKeyRef,omitempty"`
}

type kubeKeyRef struct {
	Name string `yaml:"name"`
	Key  string `yaml:"key"`
}

type kubeFieldRef struct {
	FieldPath string `yaml:"fieldPath"`
}

type kubeContainerPort struct {
	Name          string `yaml:"name,omitempty"`
	ContainerPort int    `yaml:"containerPort"`
	Protocol      string `yaml:"protocol"`
}

type kubeResources struct {
	Limits   map[string]string `yaml:"limits,omitempty"`
	Requests map[string]string `yaml:"requests,omitempty"`
}

type kubeVolumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

type kubeProbe struct {
	Exec                *kubeExec      `yaml:"exec,omitempty"`
	HTTPGet             *kubeHTTPGet   `yaml:"httpGet,omitempty"`
	TCPSocket           *kubeTCPSocket `yaml:"tcpSocket,omitempty"`
	InitialDelaySeconds int            `yaml:"initialDelaySeconds,omitempty"`
	PeriodSeconds       int            `yaml:"periodSeconds"`
	TimeoutSeconds      int            `yaml:"timeoutSeconds"`
	FailureThreshold    int            `yaml:"failureThreshold"`
}

type kubeExec struct {
	Command []string `yaml:"command"`
}

type kubeHTTPGet struct {
	Path   string `yaml:"path,omitempty"`
	Port   any    `yaml:"port"` // a number or the name of a container port
	Host   string `yaml:"host,omitempty"`
	Scheme string `yaml:"scheme,omitempty"`
}

type kubeTCPSocket struct {
	Port any    `yaml:"port"`
	Host string `yaml:"host,omitempty"`
}

type kubeContainerSecurity struct {
	RunAsUser    *int64            `yaml:"runAsUser,omitempty"`
	RunAsGroup   *int64            `yaml:"runAsGroup,omitempty"`
	Capabilities *kubeCapabilities `yaml:"capabilities,omitempty"`
}

type kubeCapabilities struct {
	Add  []string `yaml:"add,omitempty"`
	Drop []string `yaml:"drop,omitempty"`
}

type kubeVolume struct {
	Name      string         `yaml:"name"`
	EmptyDir  *kubeEmptyDir  `yaml:"emptyDir,omitempty"`
	Secret    *kubeFilesFrom `yaml:"secret,omitempty"`
	ConfigMap *kubeFilesFrom `yaml:"configMap,omitempty"`
}

// kubeFilesFrom is a Secret volume (SecretName) or a ConfigMap one (Name).
type kubeFilesFrom struct {
	SecretName  string `yaml:"secretName,omitempty"`
	Name        string `yaml:"name,omitempty"`
	DefaultMode *int   `yaml:"defaultMode,omitempty"`
}

type kubeEmptyDir struct {
	Medium    string `yaml:"medium,omitempty"`
	SizeLimit string `yaml:"sizeLimit,omitempty"`
}

type kubeClaim struct {
	Metadata kubeMeta      `yaml:"metadata"`
	Spec     kubeClaimSpec `yaml:"spec"`
}

type kubeClaimSpec struct {
	AccessModes      []string          `yaml:"accessModes"`
	StorageClassName *string           `yaml:"storageClassName,omitempty"`
	Resources        kubeClaimRequests `yaml:"resources"`
}

type kubeClaimRequests struct {
	Requests map[string]string `yaml:"requests"`
}

type kubeServiceSpec struct {
	ClusterIP                string            `yaml:"clusterIP"`
	PublishNotReadyAddresses bool              `yaml:"publishNotReadyAddresses"`
	Selector                 map[string]string `yaml:"selector"`
	Ports                    []kubeServicePort `yaml:"ports,omitempty"`
}

type kubeServicePort struct {
	Name       string `yaml:"name,omitempty"`
	Port       int    `yaml:"port"`
	TargetPort any    `yaml:"targetPort,omitempty"` // a number or a container port's name
	Protocol   string `yaml:"protocol,omitempty"`
}
