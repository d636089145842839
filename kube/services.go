package kube

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The Services beside a StatefulSet's headless one. A Service whose selector
// selects the set's pods (a client Service such as the ZooKeeper tutorial's
// zk-cs, headless or not) is a DNS name of every replica, on the set's
// network, with its cluster-local forms (engine/plan/clusterdns.go): a client
// written for the cluster connects to zk-cs:2181 unchanged. What a cluster
// does beyond the name (a virtual IP, a NodePort or a load balancer, a port
// translated to another targetPort) is noted.

// selectingServices names the Services of the set's namespace, but its
// headless one, that select pods with these labels; each is marked used.
func (k *kubeImport) selectingServices(p *mapper, podLabels map[string]string) []string {
	var out []string
	for _, d := range k.docs {
		if d.kind != "Service" || d.namespace != p.ns || d.name == p.set.ServiceName || d.name == "" {
			continue
		}
		spec := mapValue(d.root, "spec")
		selector := scalarMap(mapValue(spec, "selector"))
		if len(selector) == 0 || !selects(selector, podLabels) {
			continue
		}
		d.used = true
		out = append(out, d.name)
		k.keep("object", d.root)
		if t := mapValue(spec, "type"); t != nil && t.Value != "ClusterIP" {
			k.carried = append(k.carried, fileProblemAt(d.file, t.Line, "spec.type", fmt.Sprintf(
				"Service %q: %s: a cluster's; here %s is a DNS name of every replica (publish host ports with a set file's hostPort) (not applied)", d.name, t.Value, d.name)))
		}
		if ports := mapValue(spec, "ports"); ports != nil && ports.Kind == yaml.SequenceNode {
			for i, port := range ports.Content {
				if to := mapValueString(port, "targetPort"); to != "" && to != mapValueString(port, "port") {
					k.carried = append(k.carried, fileProblemAt(d.file, port.Line, fmt.Sprintf("spec.ports[%d].targetPort", i), fmt.Sprintf(
						"Service %q: port %s goes to %s in a cluster; a DNS name reaches each replica's own port %s (not applied)", d.name, mapValueString(port, "port"), to, mapValueString(port, "port"))))
				}
			}
		}
	}
	return out
}

// selects reports whether every label of a selector is one of the pod's.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if l, ok := labels[k]; !ok || l != v {
			return false
		}
	}
	return true
}
