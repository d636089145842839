package kube

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/kube/roundtrip"
)

// What only a cluster does. A field that means something to a cluster's
// scheduler or control plane and nothing to one Docker host (affinity,
// tolerations, a PodDisruptionBudget...) is not an error: ostset runs the
// set without it and says so, once, with its line. Manifests{Strict: true}
// refuses them instead, for those who want nothing left out.

// clusterOnly is the message of a field only a cluster's scheduler reads.
const clusterOnly = "scheduling: a cluster's scheduler reads it; ostset runs every replica on one Docker host"

// schedulingFields are the pod spec's fields that only place a pod on a node
// or order it against others.
var schedulingFields = []string{"affinity", "nodeSelector", "nodeName", "tolerations", "topologySpreadConstraints",
	"priority", "priorityClassName", "preemptionPolicy", "schedulerName", "schedulingGates"}

// carry notes key, if present, as not applied: a note, an error with Strict.
func (m *node) carry(key, why string) {
	if m == nil {
		return
	}
	if v := m.get(key); v != nil {
		k, suffix := m.k, " (kept for an export, not applied)"
		switch m.path {
		case "spec.template.spec":
			k.keep("pod."+key, v)
		case "spec.template.spec.containers[0]":
			k.keep("container."+key, v)
		case "spec.template.spec.affinity": // kept whole by carryEach
		default:
			suffix = " (not applied)"
		}
		k.carried = append(k.carried, fileProblemAt(m.file, m.keyNode(key).Line, m.at(key), why+suffix))
	}
}

// keep records a piece of the manifest as written, for an export.
func (k *kubeImport) keep(path string, n *yaml.Node) {
	if path == "object" {
		k.objects = append(k.objects, n)
	}
	if b, err := yaml.Marshal(n); err == nil {
		k.kept = append(k.kept, config.KubernetesCarried{Path: path, YAML: string(b)})
	}
}

// keepConfigMap keeps a ConfigMap the set reads (a volume, a variable) for
// an export, once, as written: a cluster needs it as the manifest gave it.
// A Secret is not kept: its values stay in the private state directory,
// never in an export.
func (k *kubeImport) keepConfigMap(d *kubeDoc) {
	if d.kind == "ConfigMap" && !slices.Contains(k.objects, d.root) {
		k.keep("object", d.root)
	}
}

// written keeps the objects an export of the StatefulSet d writes back (d,
// its headless Service, the objects kept), as written, in the files' order.
func (k *kubeImport) written(d *kubeDoc, headless bool) []config.KubernetesCarried {
	var out []config.KubernetesCarried
	for _, o := range k.docs {
		svc := headless && o.kind == "Service" && o.name == mapValueString(mapValue(d.root, "spec"), "serviceName") && o.namespace == d.namespace
		if b, err := yaml.Marshal(o.root); err == nil && (o == d || svc || slices.Contains(k.objects, o.root)) {
			out = append(out, config.KubernetesCarried{Path: roundtrip.Identity(o.root), YAML: string(b)})
		}
	}
	return out
}

// disruptionBudgets keeps the PodDisruptionBudgets of the set's namespace
// that select its pods: noted (ostset evicts nothing), written back by an
// export.
func (k *kubeImport) disruptionBudgets(p *mapper) {
	for _, d := range k.docs {
		if d.kind != "PodDisruptionBudget" || d.namespace != p.ns {
			continue
		}
		selector := scalarMap(mapValue(mapValue(mapValue(d.root, "spec"), "selector"), "matchLabels"))
		if len(selector) == 0 || !selects(selector, p.podLabels) {
			continue
		}
		d.used = true
		k.keep("object", d.root)
		k.carried = append(k.carried, fileProblemAt(d.file, d.root.Line, "", fmt.Sprintf(
			"PodDisruptionBudget %q: ostset evicts nothing: only a cluster drains nodes (kept for an export, not applied)", d.name)))
	}
}

// carryEach notes each key of the mapping at key (affinity.podAntiAffinity,
// affinity.nodeAffinity), one line each.
func (m *node) carryEach(key, why string) {
	c := m.child(key)
	if c == nil {
		return
	}
	if m.path == "spec.template.spec" {
		m.k.keep("pod."+key, c.n)
	}
	for i := 0; i+1 < len(c.n.Content); i += 2 {
		c.carry(c.n.Content[i].Value, why)
	}
}

// strictSuffix ends an error that only Strict makes one.
const strictSuffix = " (refused by --strict: ostset does not apply it)"

// requests maps resources.requests cpu and memory to Docker's reservations
// (CPU shares and a memory reservation); what else a cluster schedules by
// (ephemeral-storage, devices) is carried.
func (p *mapper) requests(r *node, setPath string) *config.Resources {
	if r == nil {
		return nil
	}
	for i := 0; i+1 < len(r.n.Content); i += 2 {
		if k := r.n.Content[i].Value; k != "cpu" && k != "memory" {
			r.carry(k, "a cluster schedules by it; Docker reserves CPU and memory only")
		}
	}
	out := p.quantities(r, setPath)
	if out == (config.Resources{}) {
		return nil
	}
	return &out
}

// carriedBack lays what an import kept (config.KubernetesNames.Carried) back
// on the exported pod and container, and returns the other objects, each as
// written.
func carriedBack(k *config.KubernetesNames, pod *kubePodSpec) ([]*yaml.Node, error) {
	if k == nil {
		return nil, nil
	}
	var objects []*yaml.Node
	for _, c := range k.Carried {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.YAML), &doc); err != nil {
			return nil, fmt.Errorf("kubernetes.carried %s: %w", c.Path, err)
		}
		if len(doc.Content) != 1 {
			return nil, fmt.Errorf("kubernetes.carried %s: not one YAML value", c.Path)
		}
		n := doc.Content[0]
		where, field, _ := strings.Cut(c.Path, ".")
		switch where {
		case "object":
			objects = append(objects, n)
		case "pod":
			pod.Carried = carry(pod.Carried, field, n)
		case "container":
			pod.Containers[0].Carried = carry(pod.Containers[0].Carried, field, n)
		default:
			return nil, fmt.Errorf("kubernetes.carried: %q is not a place of the manifest", c.Path)
		}
	}
	return objects, nil
}

func carry(m map[string]*yaml.Node, field string, n *yaml.Node) map[string]*yaml.Node {
	if m == nil {
		m = map[string]*yaml.Node{}
	}
	m[field] = n
	return m
}

// podUser moves the replica container's runAsUser and runAsGroup to the pod,
// where the manifest had them, and off every init container that has the
// same (which it then takes from the pod, as it did).
func podUser(pod *kubePodSpec) {
	main := pod.Containers[0].SecurityContext
	if main == nil || main.RunAsUser == nil {
		return
	}
	if pod.SecurityContext == nil {
		pod.SecurityContext = &kubePodSecurity{}
	}
	pod.SecurityContext.RunAsUser, pod.SecurityContext.RunAsGroup = main.RunAsUser, main.RunAsGroup
	same := func(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
	for _, c := range append([]*kubeContainer{&pod.Containers[0]}, initPointers(pod.InitContainers)...) {
		sc := c.SecurityContext
		if sc == nil || !same(sc.RunAsUser, pod.SecurityContext.RunAsUser) || !same(sc.RunAsGroup, pod.SecurityContext.RunAsGroup) {
			continue
		}
		sc.RunAsUser, sc.RunAsGroup = nil, nil
		if sc.Capabilities == nil {
			c.SecurityContext = nil
		}
	}
}

func initPointers(cs []kubeContainer) []*kubeContainer {
	out := make([]*kubeContainer, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	return out
}

// unusedRuntimeEnv drops, from the containers of an imported manifest, the
// replica variables (OSTSET_NAME...) that nothing in the container refers to:
// the manifest did not define them, and the import takes them for ostset's.
func unusedRuntimeEnv(pod *kubePodSpec) {
	for _, c := range append(initPointers(pod.Containers), initPointers(pod.InitContainers)...) {
		var runtime, own []kubeEnv
		for _, v := range c.Env {
			if slices.Contains([]string{EnvSet, EnvOrdinal, EnvName, EnvService}, v.Name) {
				runtime = append(runtime, v)
			} else {
				own = append(own, v)
			}
		}
		c.Env = own
		text, err := yaml.Marshal(c)
		if err != nil {
			continue
		}
		var used []kubeEnv
		for _, v := range runtime {
			if strings.Contains(string(text), v.Name) {
				used = append(used, v)
			}
		}
		c.Env = append(used, own...)
	}
}
