package engine

import (
	"context"
	"errors"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// LostStartError is a start the engine refuses for a replica it reports as
// created and never run, because an earlier start of it was lost on the
// engine's side: the engine killed during that start leaves its containerd
// task behind, and every start after says "task … already exists". Starting
// it again fails the same way for ever. The runtime returns it only for a
// container of this state directory that the engine says never ran (no
// process, never started), so removing it loses nothing, and the next pass
// creates the replica anew.
type LostStartError struct {
	// Replica is the container's name.
	Replica string
	// Err is the engine's error.
	Err error
}

func (e *LostStartError) Error() string { return e.Err.Error() }
func (e *LostStartError) Unwrap() error { return e.Err }

// start starts a created replica (started: true); one whose start the engine
// lost is removed instead (started: false), to be created again by the next
// pass.
func (c *Controller) start(ctx context.Context, st *state.State, a plan.Action) (started bool, err error) {
	err = c.Runtime.StartReplica(ctx, st.Spec.Name, a.ID)
	lost := (*LostStartError)(nil)
	if !errors.As(err, &lost) {
		return err == nil, err
	}
	if rerr := c.Runtime.RemoveReplica(ctx, st.Spec.Name, a.ID, st.Spec.GracePeriod()); rerr != nil {
		return false, errors.Join(err, rerr)
	}
	c.emit(st.Spec.Name, a.Name, "%s removed (it never ran, and the engine cannot start it: %v); it is created again", a.Name, lost.Err)
	return false, nil
}
