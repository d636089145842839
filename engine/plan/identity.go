package plan

import (
	"strconv"
	"strings"

	"github.com/ostset/ostset/config"
)

// Label keys ostset puts on the objects it creates.
const (
	LabelPrefix   = "io.ostset."
	LabelSet      = "io.ostset.set"
	LabelOrdinal  = "io.ostset.ordinal"
	LabelRevision = "io.ostset.revision"
	LabelClaim    = "io.ostset.claim"
	LabelManaged  = "io.ostset.managed"
	// LabelInit marks an init container with its name in the template.
	LabelInit = "io.ostset.init"
	// LabelJob marks the container of a compose job (a service run to
	// completion, engine.Controller.RunJob): it carries the set label of its
	// name, but it is no set's replica, and a set's pass treats it as a
	// foreign container holding the name.
	LabelJob = "io.ostset.job"
	// LabelOwner is the ID of the state directory that created a replica or a
	// per-ordinal volume (see Store.ID); LabelStateDir is that directory's
	// absolute path, so that a conflict can name it.
	LabelOwner    = "io.ostset.owner"
	LabelStateDir = "io.ostset.state-dir"
)

// NetworkLabels are the labels a network created for a set's replica (or a
// compose job's container) with the given labels carries besides
// io.ostset.managed: the compose project of a compose project's set
// (config.LabelComposeProject), by which 'ostset down -p' finds the networks
// the project made.
func NetworkLabels(labels map[string]string) map[string]string {
	if p, ok := labels[config.LabelComposeProject]; ok {
		return map[string]string{config.LabelComposeProject: p}
	}
	return nil
}

// ReplicaName is the container name and hostname of an ordinal.
func ReplicaName(set string, ordinal int) string {
	return set + "-" + strconv.Itoa(ordinal)
}

// ParseReplicaName returns the ordinal of name if it is <set>-<ordinal>.
func ParseReplicaName(set, name string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "/"), set+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}
