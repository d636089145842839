package plan

// Ownership of a set's objects by state directories.
//
// Docker has one namespace of container and volume names for every state
// directory that talks to the engine: a user's and root's (sudo), a daemon's with
// another $HOME, an explicit --state-dir. Each state directory has an ID
// (Store.ID) and labels what it creates with it (LabelOwner). A set's object that
// carries another ID is another state directory's: it is reported, and nothing
// is done to the set until it is gone or adopted on purpose (State.AdoptedOwners).
// This file holds that rule; the runtime checks it once more (CheckOwner) before
// it changes anything.

import (
	"fmt"
	"slices"
	"strings"
)

// Owner identifies the state directory that created an object, from its
// io.ostset.owner and io.ostset.state-dir labels.
type Owner struct {
	ID  string `json:"id"`
	Dir string `json:"stateDir,omitempty"`
}

// OwnerOf reads an object's owner from its labels.
func OwnerOf(labels map[string]string) Owner {
	return Owner{ID: labels[LabelOwner], Dir: labels[LabelStateDir]}
}

// Label puts the owner labels on a replica and on its per-ordinal volumes.
// They are not part of the revision: Render leaves them out and they are added
// here, after it.
func (o Owner) Label(spec *ReplicaSpec) {
	spec.Labels = o.label(spec.Labels)
	for i := range spec.Volumes {
		spec.Volumes[i].Labels = o.label(spec.Volumes[i].Labels)
	}
}

func (o Owner) label(labels map[string]string) map[string]string {
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelOwner] = o.ID
	labels[LabelStateDir] = o.Dir
	return labels
}

// Ownership is what one state directory counts as its own in one set.
type Ownership struct {
	Self Owner
	// Adopted are the owners whose objects were adopted on purpose.
	Adopted []Owner
}

// Owns is the ownership rule. An object is the state directory's own when it
// carries the state directory's ID, an ID it adopted, or no owner label at all:
// ostset versions before owner labels made such objects, and their sets must
// keep working after an upgrade.
func (o Ownership) Owns(x Owner) bool {
	return x.ID == "" || x.ID == o.Self.ID || slices.ContainsFunc(o.Adopted, func(a Owner) bool { return a.ID == x.ID })
}

// Classify moves the set's replicas, init containers and volumes that the state
// directory does not own out of Replicas, Inits and Volumes, into OwnedElsewhere.
func (o Ownership) Classify(set string, obs Observed) Observed {
	out := obs
	out.Replicas, out.Inits, out.Volumes, out.OwnedElsewhere = nil, nil, nil, slices.Clone(obs.OwnedElsewhere)
	for _, r := range obs.Replicas {
		if o.Owns(r.Owner) {
			out.Replicas = append(out.Replicas, r)
		} else {
			out.OwnedElsewhere = append(out.OwnedElsewhere, o.conflict(set, "container", r.Name, ShortID(r.ID), r.Owner))
		}
	}
	for _, x := range obs.Inits {
		if o.Owns(x.Owner) {
			out.Inits = append(out.Inits, x)
		} else {
			out.OwnedElsewhere = append(out.OwnedElsewhere, o.conflict(set, "container", x.Name, ShortID(x.ID), x.Owner))
		}
	}
	for _, v := range obs.Volumes {
		if o.Owns(v.Owner) {
			out.Volumes = append(out.Volumes, v)
		} else {
			out.OwnedElsewhere = append(out.OwnedElsewhere, o.conflict(set, "volume", v.Name, "", v.Owner))
		}
	}
	return out
}

// Conflict is an object that carries a set's name or label but is not the set's
// to touch: a container holding a replica's name without the set's label, or a
// container or volume of the set that another state directory owns.
type Conflict struct {
	Kind string `json:"kind"` // container or volume
	Name string `json:"name"`
	ID   string `json:"id,omitempty"` // short container ID
	// Owner is the state directory that owns the object; zero for a container
	// that ostset did not create for this set.
	Owner   Owner  `json:"owner,omitzero"`
	Message string `json:"message"`
	// Resolve says how to get past the conflict.
	Resolve string `json:"resolve,omitempty"`
	// Holder is Owner described from this state directory.
	Holder string `json:"-"`
}

func (o Ownership) conflict(set, kind, name, id string, owner Owner) Conflict {
	what := kind + " " + name
	if id != "" {
		what += " (" + id + ")"
	}
	holder := o.Holder(owner)
	return Conflict{Kind: kind, Name: name, ID: id, Owner: owner, Holder: holder,
		Message: fmt.Sprintf("%s belongs to set %s of %s, not to this one", what, set, holder),
		Resolve: o.resolve(set, owner)}
}

// Holder describes an owner as seen from this state directory.
func (o Ownership) Holder(x Owner) string {
	switch x.Dir {
	case "":
		return fmt.Sprintf("another state directory (id %s)", x.ID)
	case o.Self.Dir:
		return fmt.Sprintf("an earlier identity of state directory %s (id %s; it is %s now)", x.Dir, x.ID, o.Self.ID)
	}
	return fmt.Sprintf("state directory %s (id %s)", x.Dir, x.ID)
}

// resolve is the way to take a set over on purpose. The other state directory
// should forget the set first, or both would go on managing it.
func (o Ownership) resolve(set string, x Owner) string {
	adopt := "run 'ostset up --adopt -f FILE' here"
	if x.Dir == "" || x.Dir == o.Self.Dir {
		return "to take the set over on purpose, " + adopt
	}
	return fmt.Sprintf("to take the set over on purpose, forget it there ('ostset down %s --cascade=orphan --state-dir %s') and %s", set, x.Dir, adopt)
}

// foreignConflict is a container without the set's label holding a replica's name.
func foreignConflict(set string, f Foreign) Conflict {
	holder := "container " + ShortID(f.ID)
	if f.Job {
		holder = "the container " + ShortID(f.ID) + " of a compose job"
	}
	return Conflict{Kind: "container", Name: f.Name, ID: ShortID(f.ID),
		Message: fmt.Sprintf("%s: the name is held by %s, which set %s does not own", f.Name, holder, set),
		Resolve: "ostset never touches it: remove or rename it and the replica is created"}
}

// conflicts lists what status reports: the names, and each conflict explained.
func conflicts(set string, obs Observed) ([]string, []Conflict) {
	var names []string
	var all []Conflict
	for _, f := range obs.Foreign {
		all = append(all, foreignConflict(set, f))
	}
	all = append(all, obs.OwnedElsewhere...)
	for _, c := range all {
		names = append(names, c.Name)
	}
	return names, all
}

// heldElsewhere is the planner's ownership rule: while another state directory
// owns any of the set's containers or volumes, nothing of the set is created,
// started or removed from this one. Two state directories never both act on a
// set, and the one that was there first keeps it. The set waits, saying who
// holds what and how to take it over on purpose.
func (p *planner) heldElsewhere() bool {
	for _, line := range heldLines(p.set.Name, p.in.Observed.OwnedElsewhere) {
		p.wait("%s", line)
	}
	return len(p.in.Observed.OwnedElsewhere) > 0
}

// maxNamed bounds how many objects one line names.
const maxNamed = 8

// heldLines says, one line per owner, which of the set's objects it holds.
func heldLines(set string, cs []Conflict) []string {
	var order []string
	byOwner := map[string][]Conflict{}
	for _, c := range cs {
		if _, seen := byOwner[c.Owner.ID]; !seen {
			order = append(order, c.Owner.ID)
		}
		byOwner[c.Owner.ID] = append(byOwner[c.Owner.ID], c)
	}
	lines := make([]string, 0, len(order))
	for _, id := range order {
		group := byOwner[id]
		var names []string
		for _, c := range group[:min(len(group), maxNamed)] {
			names = append(names, c.Kind+" "+c.Name)
		}
		if len(group) > maxNamed {
			names = append(names, fmt.Sprintf("%d more", len(group)-maxNamed))
		}
		verb := "belongs"
		if len(group) > 1 {
			verb = "belong"
			names[len(names)-1] = "and " + names[len(names)-1]
		}
		list := strings.Join(names, ", ")
		if len(names) == 2 {
			list = strings.Join(names, " ")
		}
		lines = append(lines, fmt.Sprintf("set %s: %s %s to %s; nothing is done to the set from this state directory; %s",
			set, list, verb, group[0].Holder, group[0].Resolve))
	}
	return lines
}

// OwnershipError says that another state directory owns some of a set's
// containers or volumes.
type OwnershipError struct {
	Set       string
	Conflicts []Conflict
}

func (e *OwnershipError) Error() string {
	return strings.Join(heldLines(e.Set, e.Conflicts), "; ")
}

// Owners lists the distinct owners of the conflicts, in order.
func (e *OwnershipError) Owners() []Owner {
	var out []Owner
	for _, c := range e.Conflicts {
		if c.Owner.ID != "" && !slices.ContainsFunc(out, func(o Owner) bool { return o.ID == c.Owner.ID }) {
			out = append(out, c.Owner)
		}
	}
	return out
}
