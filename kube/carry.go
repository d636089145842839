package kube

import "github.com/ostset/ostset/config"

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
		k := m.k
		k.carried = append(k.carried, fileProblemAt(m.file, m.keyNode(key).Line, m.at(key), why+" (not applied)"))
	}
}

// carryEach notes each key of the mapping at key (affinity.podAntiAffinity,
// affinity.nodeAffinity), one line each.
func (m *node) carryEach(key, why string) {
	c := m.child(key)
	if c == nil {
		return
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
