package main

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
)

// runsNow says, after an image problem stopped an up, which image the set
// still runs: nothing was changed. A set started with another image (an
// example run with ETCD_IMAGE, say) otherwise leaves the user guessing why
// a plain up fails.
func runsNow(store state.Store, s config.Set) string {
	st, err := store.Load(s.Name)
	if err != nil {
		return ""
	}
	if r, ok := st.Revision(st.UpdateRevision); ok {
		return fmt.Sprintf(" (nothing changed: %s runs %s, revision %s)", s.Name, r.Spec.Template.Image, r.Name)
	}
	return ""
}
