package preview

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

// Engine is what a preview reads.
type Engine struct {
	Controller *engine.Controller
	// NetworkExists says whether a network exists, without making it; nil:
	// the preview does not say which networks up would create.
	NetworkExists func(ctx context.Context, name string) (bool, error)
	Now           func() time.Time
}

// Set is the preview of one set.
type Set struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
	// New: no set of this name is stored; up creates it.
	New bool `json:"new"`
	// Stored is the update revision stored now ("" for a new set).
	Stored string `json:"storedRevision,omitempty"`
	// Revision is the update revision up would make; UnknownRevision says
	// why its name cannot be known (an image not present locally), and then
	// Revision is "".
	Revision        string `json:"revision,omitempty"`
	UnknownRevision string `json:"unknownRevision,omitempty"`
	// RevisionChanged: up makes a new update revision.
	RevisionChanged bool `json:"revisionChanged"`
	// Changes are the template's changes, as rollout history lists them.
	Changes []string `json:"changes,omitempty"`
	// SpecChanges are the changes of the spec outside the revision
	// (replicas, policies, strategy).
	SpecChanges []string `json:"specChanges,omitempty"`
	// Notes are what up would say besides (values kept from commands, a
	// cancelled delete, how images were compared).
	Notes []string `json:"notes,omitempty"`
	Plan  Plan     `json:"plan"`
}

// Changed reports whether up would change anything of the set: its stored
// spec, or its replicas, volumes or networks.
func (s Set) Changed() bool {
	return s.New || s.RevisionChanged || len(s.SpecChanges) > 0 || !s.Plan.Empty()
}

// Preview says what `ostset up` would do with s (loaded and checked as up
// loads it), changing nothing.
func (e Engine) Preview(ctx context.Context, s config.Set) (Set, error) {
	c := e.Controller
	now := time.Now()
	if e.Now != nil {
		now = e.Now()
	}
	out := Set{Name: s.Name, Source: s.Source}
	st, err := c.Store.Load(s.Name)
	exists := err == nil
	if err != nil && !errors.Is(err, state.ErrUnknownSet) {
		return out, err
	}
	out.New = !exists
	out.Stored = st.UpdateRevision
	prev, _ := st.Revision(st.UpdateRevision)
	ids, unknown, notes, err := e.images(ctx, s, prev, exists)
	if err != nil {
		return out, err
	}
	out.Notes = notes
	next := state.State{} // a copy of its own, changed in memory only
	if exists {
		if next, err = c.Store.Load(s.Name); err != nil {
			return out, err
		}
	}
	res, err := next.Apply(s, ids, "", now, exists)
	if err != nil {
		return out, err
	}
	out.Notes = append(out.Notes, res.Notes...)
	out.Revision, out.RevisionChanged = next.UpdateRevision, res.Changed || !exists
	if unknown != "" {
		out.Revision, out.UnknownRevision = "", unknown
	}
	if exists {
		cur, _ := next.Revision(next.UpdateRevision)
		out.Changes = present.RevisionChanges(prev.Spec, cur.Spec)
		out.SpecChanges = specChanges(st.Spec, next.Spec)
	}
	obs, err := observe(ctx, c, s.Name, st)
	if err != nil {
		return out, err
	}
	out.Plan = simulate(next, obs, now, displayName(out))
	if err := e.networks(ctx, st, next, exists, &out.Plan); err != nil {
		return out, err
	}
	return out, nil
}

// observe observes a set as a pass does, classified by owner, and changes
// nothing, not even the state directory's ID (Store.ExistingOwner: a
// directory without one owns nothing yet).
func observe(ctx context.Context, c *engine.Controller, name string, st state.State) (plan.Observed, error) {
	self, err := c.Store.ExistingOwner()
	if err != nil {
		return plan.Observed{}, err
	}
	obs, err := c.Runtime.Observe(ctx, name, engine.ObserveOptions{Timings: st.Spec.MinReadySeconds > 0})
	if err != nil {
		return plan.Observed{}, err
	}
	return plan.Ownership{Self: self, Adopted: st.AdoptedOwners}.Classify(name, obs), nil
}

// displayName names the revision up would make in the plan's lines.
func displayName(s Set) func(string) string {
	return func(rev string) string {
		if s.UnknownRevision != "" && rev != "" && rev != s.Stored && s.RevisionChanged {
			return "(new revision)"
		}
		return rev
	}
}

// images finds the local IDs of the set's images without pulling any (the
// policy Never, whatever the set says). An image not present locally is
// compared by reference: where the stored update revision names the same
// reference its ID is taken, and otherwise the new revision's name is
// unknown (unknown says why). An image missing under the policy Never is the
// error up would give.
func (e Engine) images(ctx context.Context, s config.Set, prev state.Revision, exists bool) (ids state.ImageIDs, unknown string, notes []string, err error) {
	type image struct {
		field, ref, policy, prevRef, prevID string
	}
	imgs := []image{{field: "template.image", ref: s.Template.Image, policy: s.Template.PullPolicy(), prevRef: prev.Spec.Template.Image, prevID: prev.Spec.ImageID}}
	for i, ic := range s.Template.InitContainers {
		im := image{field: fmt.Sprintf("template.initContainers[%d].image", i), ref: ic.Image, policy: ic.PullPolicy(), prevID: prev.Spec.InitImageIDs[ic.Name]}
		for _, pc := range prev.Spec.Template.InitContainers {
			if pc.Name == ic.Name {
				im.prevRef = pc.Image
			}
		}
		imgs = append(imgs, im)
	}
	for i, im := range imgs {
		id, err := e.Controller.Runtime.EnsureImage(ctx, im.ref, config.PullNever, nil)
		var ie *engine.ImageError
		switch {
		case errors.As(err, &ie) && im.policy == config.PullNever:
			return ids, "", nil, fmt.Errorf("%s: %s: %w", s.FieldSource(im.field), im.field, err)
		case errors.As(err, &ie) && exists && im.ref == im.prevRef && im.prevID != "":
			id = im.prevID
			notes = append(notes, fmt.Sprintf("image %s is not present locally (up would pull it): compared by reference, taking the ID of the stored revision's image (%s)", im.ref, shortID(id)))
		case errors.As(err, &ie):
			unknown = fmt.Sprintf("image %s is not present locally: its ID, part of the revision, is known only once up pulls it", im.ref)
		case err != nil:
			return ids, "", nil, err
		case im.policy == config.PullAlways:
			notes = append(notes, fmt.Sprintf("imagePullPolicy Always: up pulls %s first; compared with the local image (%s)", im.ref, shortID(id)))
		}
		if i == 0 {
			ids.Main = id
			continue
		}
		if ids.Init == nil {
			ids.Init = map[string]string{}
		}
		ids.Init[s.Template.InitContainers[i-1].Name] = id
	}
	return ids, unknown, notes, nil
}

// networks adds to p the networks up would create, and those the set leaves.
func (e Engine) networks(ctx context.Context, st, next state.State, exists bool, p *Plan) error {
	if exists {
		for _, n := range st.Spec.NetworkNames() {
			if !contains(next.Spec.NetworkNames(), n) {
				p.Networks = append(p.Networks, NetworkStep{Name: n, Action: "leave"})
			}
		}
	}
	if e.NetworkExists == nil || p.Empty() {
		return nil
	}
	for _, n := range next.Spec.NetworkNames() {
		ok, err := e.NetworkExists(ctx, n)
		if err != nil {
			return err
		}
		if !ok {
			p.Networks = append(p.Networks, NetworkStep{Name: n, Action: "create"})
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func shortID(id string) string {
	if len(id) > 19 { // sha256: and 12 characters
		return id[:19]
	}
	return id
}
