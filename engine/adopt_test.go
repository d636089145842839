package engine

import (
	"context"
	"testing"

	"github.com/ostset/ostset/engine/plan"
)

var (
	me      = plan.Owner{ID: "me", Dir: "/state/me"}
	adopted = plan.Owner{ID: "adopted", Dir: "/state/old"}
	other   = plan.Owner{ID: "other", Dir: "/state/other"}
	mine    = plan.Ownership{Self: me, Adopted: []plan.Owner{adopted}}
)

func TestCheckOwner(t *testing.T) {
	ctx := WithOwnership(context.Background(), mine)
	for _, o := range []plan.Owner{me, adopted, {}} {
		if err := CheckOwner(ctx, o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if err := CheckOwner(ctx, other); err == nil || err.Error() != "it belongs to state directory /state/other (id other), not to this one" {
		t.Errorf("another owner: %v", err)
	}
	// Without an ownership only unlabelled objects may be changed.
	if err := CheckOwner(context.Background(), plan.Owner{}); err != nil {
		t.Error(err)
	}
	if err := CheckOwner(context.Background(), me); err == nil {
		t.Error("a labelled object changed without an ownership in the context")
	}
}
