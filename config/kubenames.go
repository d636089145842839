package config

import (
	"maps"
	"slices"
)

// KubernetesNames keeps what an imported Kubernetes manifest says that
// ostset does not use itself but a cluster does: the namespace, the labels
// and selectors of the StatefulSet and its Service, and the names of the
// container and of the ports. An export writes them back as they were, so
// that the export applied over the original changes none of them (a
// StatefulSet's selector cannot change at all). They are not part of the
// revision. Nil for a set written as a set file, and for a manifest that
// says only what an export writes anyway.
type KubernetesNames struct {
	Namespace string            `yaml:"namespace" json:"namespace,omitempty"`
	Labels    map[string]string `yaml:"labels" json:"labels,omitempty"` // the StatefulSet's metadata.labels
	// Annotations are the StatefulSet's own, but for ostset's.
	Annotations map[string]string `yaml:"annotations" json:"annotations,omitempty"`
	Selector    map[string]string `yaml:"selector" json:"selector,omitempty"` // spec.selector.matchLabels
	Container   string            `yaml:"container" json:"container,omitempty"`
	// Ports names the container ports, by number and protocol.
	Ports   []KubernetesPort   `yaml:"ports" json:"ports,omitempty"`
	Service *KubernetesService `yaml:"service" json:"service,omitempty"`
	// Services are the other Services of the manifest that select the set's
	// pods (a client Service): DNS names every replica answers to. Unlike
	// the rest, they are part of the revision (RevisionSpec.Services).
	Services []string `yaml:"services" json:"services,omitempty"`
	// Carried is what the manifest says and ostset does not apply, as YAML
	// written back by an export: "pod.<field>" and "container.<field>" of the
	// pod spec and the replica container, "object" another object (a
	// PodDisruptionBudget, a client Service).
	Carried []KubernetesCarried `yaml:"carried" json:"carried,omitempty"`
	// PodUser: the pod's securityContext gave the user (runAsUser), which an
	// export writes there rather than on the container.
	PodUser bool `yaml:"podUser" json:"podUser,omitempty"`
	// Claims are what the volume claim templates say beyond their names
	// (their storage requests at least): a cluster does not let a
	// StatefulSet's claims change, so an export writes them as they were.
	Claims []KubernetesClaim `yaml:"claims" json:"claims,omitempty"`
	// Written are the objects an export writes back (the StatefulSet, its
	// Services, its PodDisruptionBudgets) as the manifest wrote them, in the
	// manifest's order ("Kind/namespace/name" as Path): an export gives them
	// back in that order and form (kube/roundtrip).
	Written []KubernetesCarried `yaml:"written" json:"written,omitempty"`
	// Volumes are Secrets and ConfigMaps a cluster mounts where the set's
	// files are (a compose file's secrets and configs, converted): an export
	// writes each as a volume, in place of the mount of the files.
	Volumes []KubernetesVolume `yaml:"volumes" json:"volumes,omitempty"`
}

// KubernetesVolume is a Secret or ConfigMap volume, mounted read-only.
type KubernetesVolume struct {
	Name        string `yaml:"name" json:"name"`
	Kind        string `yaml:"kind" json:"kind"`     // Secret or ConfigMap
	Object      string `yaml:"object" json:"object"` // the Secret's or ConfigMap's name
	MountPath   string `yaml:"mountPath" json:"mountPath"`
	DefaultMode uint32 `yaml:"defaultMode" json:"defaultMode,omitempty"` // the files' mode; 0: Kubernetes' 0644
}

// KubernetesCarried is one piece of a manifest, kept as it was written.
type KubernetesCarried struct {
	Path string `yaml:"path" json:"path"`
	YAML string `yaml:"yaml" json:"yaml"`
}

// KubernetesClaim is what a volume claim template said beyond its name.
type KubernetesClaim struct {
	Name             string            `yaml:"name" json:"name"`
	Labels           map[string]string `yaml:"labels" json:"labels,omitempty"`
	Annotations      map[string]string `yaml:"annotations" json:"annotations,omitempty"`
	AccessModes      []string          `yaml:"accessModes" json:"accessModes,omitempty"`
	StorageClassName *string           `yaml:"storageClassName" json:"storageClassName,omitempty"`
	Storage          string            `yaml:"storage" json:"storage,omitempty"` // the storage request
}

// KubernetesPort is the name of a container port.
type KubernetesPort struct {
	Name          string `yaml:"name" json:"name"`
	ContainerPort int    `yaml:"containerPort" json:"containerPort"`
	Protocol      string `yaml:"protocol" json:"protocol,omitempty"` // tcp (default), udp, sctp
}

// KubernetesService is what the headless Service said.
type KubernetesService struct {
	Labels   map[string]string       `yaml:"labels" json:"labels,omitempty"`
	Selector map[string]string       `yaml:"selector" json:"selector,omitempty"`
	Ports    []KubernetesServicePort `yaml:"ports" json:"ports,omitempty"`
}

// KubernetesServicePort is one port of the Service, as written.
type KubernetesServicePort struct {
	Name       string `yaml:"name" json:"name,omitempty"`
	Port       int    `yaml:"port" json:"port"`
	TargetPort string `yaml:"targetPort" json:"targetPort,omitempty"` // a number or a container port's name; empty: port
	Protocol   string `yaml:"protocol" json:"protocol,omitempty"`
}

func (k *KubernetesNames) clone() *KubernetesNames {
	if k == nil {
		return nil
	}
	c := *k
	c.Labels = maps.Clone(k.Labels)
	c.Annotations = maps.Clone(k.Annotations)
	c.Selector = maps.Clone(k.Selector)
	c.Ports, c.Services, c.Carried = slices.Clone(k.Ports), slices.Clone(k.Services), slices.Clone(k.Carried)
	c.Claims, c.Written, c.Volumes = slices.Clone(k.Claims), slices.Clone(k.Written), slices.Clone(k.Volumes)
	for i := range c.Claims {
		cl := &c.Claims[i]
		cl.Labels, cl.Annotations, cl.AccessModes = maps.Clone(cl.Labels), maps.Clone(cl.Annotations), slices.Clone(cl.AccessModes)
		if cl.StorageClassName != nil {
			cl.StorageClassName = ptr(*cl.StorageClassName)
		}
	}
	if k.Service != nil {
		svc := *k.Service
		svc.Labels = maps.Clone(svc.Labels)
		svc.Selector = maps.Clone(svc.Selector)
		svc.Ports = slices.Clone(svc.Ports)
		c.Service = &svc
	}
	return &c
}

// ServiceNames are the Services' names (a copy); nil without any.
func (k *KubernetesNames) ServiceNames() []string {
	if k == nil {
		return nil
	}
	return slices.Clone(k.Services)
}
