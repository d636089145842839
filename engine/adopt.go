package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// ownership is what st's state directory counts as its own in the set.
func (c *Controller) ownership(st state.State) (plan.Ownership, error) {
	self, err := c.Store.Owner()
	if err != nil {
		return plan.Ownership{}, err
	}
	return plan.Ownership{Self: self, Adopted: st.AdoptedOwners}, nil
}

// observe observes a set and classifies what it sees by owner (other state
// directories' objects go to OwnedElsewhere). The context it returns carries the
// ownership, which the runtime checks once more before it changes anything.
func (c *Controller) observe(ctx context.Context, name string, st state.State, opts ObserveOptions) (context.Context, plan.Observed, error) {
	own, err := c.ownership(st)
	if err != nil {
		return ctx, plan.Observed{}, err
	}
	obs, err := c.Runtime.Observe(ctx, name, opts)
	if err != nil {
		return ctx, plan.Observed{}, err
	}
	return WithOwnership(ctx, own), own.Classify(name, obs), nil
}

// labelOwner labels a replica and its volumes with this state directory.
func (c *Controller) labelOwner(spec *plan.ReplicaSpec) error {
	self, err := c.Store.Owner()
	if err != nil {
		return err
	}
	self.Label(spec)
	return nil
}

// Claim checks, before a set's spec is stored, that no other state directory
// owns any of its containers or volumes. If one does, it returns an
// *OwnershipError naming them and the way out, or with adopt their owners, to be
// recorded by Adopt once the spec is stored.
func (c *Controller) Claim(ctx context.Context, name string, adopt bool) ([]plan.Owner, error) {
	st, err := c.Store.Load(name)
	if err != nil && !errors.Is(err, state.ErrUnknownSet) {
		return nil, err
	}
	_, obs, err := c.observe(ctx, name, st, ObserveOptions{})
	if err != nil {
		return nil, err
	}
	if len(obs.OwnedElsewhere) == 0 {
		return nil, nil
	}
	held := &plan.OwnershipError{Set: name, Conflicts: obs.OwnedElsewhere}
	if !adopt {
		return nil, held
	}
	return held.Owners(), nil
}

// Adopt records owners in the set's state: their containers and volumes of the
// set count as its own from then on. Docker cannot relabel an existing object,
// so the adopted owners are kept for as long as the set is.
func (c *Controller) Adopt(ctx context.Context, name string, owners []plan.Owner) error {
	if len(owners) == 0 {
		return nil
	}
	var added []plan.Owner
	var own plan.Ownership
	_, err := c.Store.Update(ctx, name, func(st *state.State, exists bool) error {
		if !exists {
			return c.Store.Unknown(name)
		}
		var err error
		if own, err = c.ownership(*st); err != nil {
			return err
		}
		added = st.AdoptOwners(owners)
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range added {
		c.emit(name, "", "adopted the set's containers and volumes of %s", own.Holder(o))
	}
	return nil
}

// heldElsewhere is the *OwnershipError of a plan held by another state
// directory's objects, or nil.
func heldElsewhere(set string, pl plan.Plan) error {
	var held []plan.Conflict
	for _, x := range pl.Status.ConflictDetails {
		if x.Owner.ID != "" {
			held = append(held, x)
		}
	}
	if len(held) == 0 {
		return nil
	}
	return &plan.OwnershipError{Set: set, Conflicts: held}
}

// leftAlone reports, when a set is deleted, the objects another state directory
// owns, which the delete did not touch.
func (c *Controller) leftAlone(set string, cs []plan.Conflict) {
	for _, x := range cs {
		c.emit(set, x.Name, "%s %s left alone: it belongs to %s", x.Kind, x.Name, x.Holder)
	}
}

type ownershipKey struct{}

// WithOwnership returns ctx carrying o, for the runtime's own check (CheckOwner).
func WithOwnership(ctx context.Context, o plan.Ownership) context.Context {
	return context.WithValue(ctx, ownershipKey{}, o)
}

// CheckOwner is the runtime's last check before it changes an object of a set:
// it refuses an object whose owner the Ownership carried by ctx does not own.
// Without one, only objects that carry no owner label may be changed, so a call
// that lost its ownership on the way can touch nothing another state directory
// made.
func CheckOwner(ctx context.Context, owner plan.Owner) error {
	o, _ := ctx.Value(ownershipKey{}).(plan.Ownership)
	if o.Owns(owner) {
		return nil
	}
	if o.Self.ID == "" {
		return fmt.Errorf("it belongs to %s", o.Holder(owner))
	}
	return fmt.Errorf("it belongs to %s, not to this one", o.Holder(owner))
}
