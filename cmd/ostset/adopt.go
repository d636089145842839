package main

import (
	"context"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// claim checks, before anything is stored, that no other state directory owns
// the sets' containers or volumes: up fails at once (exit 1) naming the owner
// and the way out, unless adopt asks to take them over. It returns, per set,
// the owners to adopt.
func (a *app) claim(ctx context.Context, sets []config.Set, adopt bool) (map[string][]plan.Owner, error) {
	c, err := a.controller()
	if err != nil {
		return nil, err
	}
	owners := map[string][]plan.Owner{}
	for _, s := range sets {
		if owners[s.Name], err = c.Claim(ctx, s.Name, adopt); err != nil {
			return nil, err
		}
	}
	return owners, nil
}

// adopt records the owners a set adopted, once its spec is stored.
func (a *app) adopt(ctx context.Context, set string, owners []plan.Owner) error {
	if len(owners) == 0 {
		return nil
	}
	c, err := a.controller()
	if err != nil {
		return err
	}
	return c.Adopt(ctx, set, owners)
}
