package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

// applyWithPull applies a set, showing the pulls of its images (the main
// container's and the init containers'). A problem with an image, or a file that
// does not validate with the values kept from commands, is invalid input (exit
// code 2).
func (a *app) applyWithPull(ctx context.Context, c *engine.Controller, s config.Set, cause string) (state.ApplyResult, error) {
	p := present.NewPullPrinter(a.stdout, isTerminal(a.stdout), s.Name, time.Now)
	ids, err := c.Images(ctx, s, p.Update)
	p.Finish(err)
	if err != nil {
		err = fmt.Errorf("%w%s", err, runsNow(c.Store, s))
	}
	if ie := (*engine.ImageError)(nil); errors.As(err, &ie) {
		return state.ApplyResult{}, invalid(err)
	}
	if err != nil {
		return state.ApplyResult{}, err
	}
	res, err := c.ApplyImages(ctx, s, ids, cause)
	if fe := (config.FieldError{}); errors.As(err, &fe) {
		return res, invalid(err)
	}
	return res, err
}
