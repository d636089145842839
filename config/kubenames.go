package config

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
	// Claims are what the volume claim templates say beyond their names
	// (their storage requests at least): a cluster does not let a
	// StatefulSet's claims change, so an export writes them as they were.
	Claims []KubernetesClaim `yaml:"claims" json:"claims,omitempty"`
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

// isDefault reports whether a claim says only what an export writes for it.
func (c KubernetesClaim) isDefault() bool {
	return len(c.Labels) == 0 && len(c.Annotations) == 0 && c.StorageClassName == nil &&
		(len(c.AccessModes) == 0 || slices.Equal(c.AccessModes, []string{"ReadWriteOnce"})) &&
		(c.Storage == "" || c.Storage == DefaultStorage)
}

// claim is what the manifest said of the claim named name, if anything.
func (k *KubernetesNames) claim(name string) *KubernetesClaim {
	if k == nil {
		return nil
	}
	for i := range k.Claims {
		if k.Claims[i].Name == name {
			return &k.Claims[i]
		}
	}
	return nil
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
	c.Ports = slices.Clone(k.Ports)
	c.Claims = slices.Clone(k.Claims)
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

// portName is the name the manifest gave the container port, if any.
func (k *KubernetesNames) portName(port int, protocol string) string {
	if k == nil {
		return ""
	}
	for _, p := range k.Ports {
		if p.ContainerPort == port && strings.EqualFold(orTCP(p.Protocol), orTCP(protocol)) {
			return p.Name
		}
	}
	return ""
}

func orTCP(protocol string) string {
	if protocol == "" {
		return "tcp"
	}
	return protocol
}

// defaultKubernetesNames is what an export of s writes when the set keeps
// no names: the app.kubernetes.io/name label and selector, the container
// named as the set, unnamed container ports, and Service ports named
// tcp-80.
func defaultKubernetesNames(s Set) KubernetesNames {
	sel := map[string]string{NameLabel: s.Name}
	svc := &KubernetesService{Labels: sel, Selector: sel}
	for _, p := range s.Template.Ports {
		proto := strings.ToUpper(orTCP(p.Protocol))
		svc.Ports = append(svc.Ports, KubernetesServicePort{
			Name: strings.ToLower(proto) + "-" + strconv.Itoa(p.ContainerPort), Port: p.ContainerPort,
			TargetPort: strconv.Itoa(p.ContainerPort), Protocol: proto,
		})
	}
	return KubernetesNames{Labels: sel, Selector: sel, Container: s.Name, Service: svc}
}

// sameAsDefault reports whether k says only what an export of s writes
// anyway (nil and empty alike).
func (k *KubernetesNames) sameAsDefault(s Set) bool {
	d := defaultKubernetesNames(s)
	norm := func(n KubernetesNames) KubernetesNames {
		if len(n.Ports) == 0 {
			n.Ports = nil
		}
		n.Claims = slices.DeleteFunc(slices.Clone(n.Claims), KubernetesClaim.isDefault)
		if len(n.Claims) == 0 {
			n.Claims = nil
		}
		if n.Service != nil && len(n.Service.Ports) == 0 {
			svc := *n.Service
			svc.Ports = nil
			n.Service = &svc
		}
		return n
	}
	return reflect.DeepEqual(norm(*k), norm(d))
}

func (k *KubernetesNames) labels() map[string]string {
	if k == nil {
		return nil
	}
	return k.Labels
}

func (k *KubernetesNames) service() *KubernetesService {
	if k == nil {
		return nil
	}
	return k.Service
}
