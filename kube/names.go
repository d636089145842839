package kube

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ostset/ostset/config"
)

// claimIsDefault reports whether a claim says only what an export writes for it.
func claimIsDefault(c config.KubernetesClaim) bool {
	return len(c.Labels) == 0 && len(c.Annotations) == 0 && c.StorageClassName == nil &&
		(len(c.AccessModes) == 0 || slices.Equal(c.AccessModes, []string{"ReadWriteOnce"})) &&
		(c.Storage == "" || c.Storage == DefaultStorage)
}

// keptClaim is what the manifest said of the claim named name, if anything.
func keptClaim(k *config.KubernetesNames, name string) *config.KubernetesClaim {
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

// portName is the name the manifest gave the container port, if any.
func portName(k *config.KubernetesNames, port int, protocol string) string {
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
func defaultKubernetesNames(s config.Set) config.KubernetesNames {
	sel := map[string]string{NameLabel: s.Name}
	svc := &config.KubernetesService{Labels: sel, Selector: sel}
	for _, p := range s.Template.Ports {
		proto := strings.ToUpper(orTCP(p.Protocol))
		svc.Ports = append(svc.Ports, config.KubernetesServicePort{
			Name: strings.ToLower(proto) + "-" + strconv.Itoa(p.ContainerPort), Port: p.ContainerPort,
			TargetPort: strconv.Itoa(p.ContainerPort), Protocol: proto,
		})
	}
	return config.KubernetesNames{Labels: sel, Selector: sel, Container: s.Name, Service: svc}
}

// sameAsDefault reports whether k says only what an export of s writes
// anyway (nil and empty alike).
func sameAsDefault(k *config.KubernetesNames, s config.Set) bool {
	d := defaultKubernetesNames(s)
	norm := func(n config.KubernetesNames) config.KubernetesNames {
		if len(n.Ports) == 0 {
			n.Ports = nil
		}
		n.Claims = slices.DeleteFunc(slices.Clone(n.Claims), claimIsDefault)
		n.Carried = slices.DeleteFunc(slices.Clone(n.Carried), func(c config.KubernetesCarried) bool { // the set says them
			return c.Path == "container.livenessProbe" || c.Path == "container.startupProbe"
		})
		if len(n.Carried) == 0 {
			n.Carried = nil
		}
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

// fromManifest: the set keeps what an imported manifest said, beyond the
// volumes a conversion gives it.
func fromManifest(k *config.KubernetesNames) bool {
	if k == nil {
		return false
	}
	c := *k
	c.Volumes = nil
	return !reflect.DeepEqual(c, config.KubernetesNames{})
}

func keptLabels(k *config.KubernetesNames) map[string]string {
	if k == nil {
		return nil
	}
	return k.Labels
}

func keptService(k *config.KubernetesNames) *config.KubernetesService {
	if k == nil {
		return nil
	}
	return k.Service
}
