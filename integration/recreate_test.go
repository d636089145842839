//go:build integration

package integration

import (
	"fmt"
	"testing"
)

// Recreate: every replica of v1 is removed before any of v2 is created (in
// Docker's own event stream), the new ones come in ordinal order
// (OrderedReady), and each ordinal keeps its volume and its data.
func TestRecreateRemovesEveryOldReplicaBeforeCreatingNew(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const strategy = "updateStrategy:\n  type: Recreate\n"
	h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, strategy), imageV1))
	v1 := h.revisions()[h.name(0)]
	volumes := map[string]string{}
	for i := range 3 {
		h.docker("exec", h.name(i), "/web", "write", "/data/note", "written at v1 by "+h.name(i))
		volumes[h.name(i)] = h.inspect(h.name(i)).Mounts[0].Name
	}

	stop := h.recordEvents()
	r := h.mustOstset("up", "-f", h.writeSpec(scaledSpec(3, strategy), imageV2))
	evs := stop()

	lastDestroy, firstCreate := -1, -1
	for i, e := range evs {
		switch {
		case e.Action == "destroy":
			lastDestroy = i
		case e.Action == "create" && firstCreate < 0:
			firstCreate = i
		}
	}
	for i := range 3 {
		if indexOf(evs, "destroy", h.name(i)) < 0 || indexOf(evs, "create", h.name(i)) < 0 {
			t.Fatalf("%s was not removed and created again; events:\n%v\n%s", h.name(i), evs, r)
		}
	}
	if firstCreate < lastDestroy {
		t.Errorf("a replica of v2 was created before the last of v1 was removed; events:\n%v", evs)
	}
	// The new ones in order: web-1 is created only after web-0 is ready.
	before(t, evs, event{readyEvent, h.name(0)}, event{"create", h.name(1)})
	before(t, evs, event{readyEvent, h.name(1)}, event{"create", h.name(2)})
	for i := range 3 {
		c := h.inspect(h.name(i))
		if rev := c.Config.Labels["io.ostset.revision"]; rev == v1 {
			t.Errorf("%s still at %s", h.name(i), v1)
		}
		if got := c.Mounts[0].Name; got != volumes[h.name(i)] {
			t.Errorf("%s mounts %s, want its volume %s", h.name(i), got, volumes[h.name(i)])
		}
		want := fmt.Sprintf("written at v1 by %s", h.name(i))
		if got := h.docker("exec", h.name(i), "/web", "cat", "/data/note"); got != want {
			t.Errorf("%s: /data/note %q, want %q", h.name(i), got, want)
		}
	}
	var st struct {
		UpdatedReplicas int    `json:"updatedReplicas"`
		CurrentRevision string `json:"currentRevision"`
		UpdateRevision  string `json:"updateRevision"`
	}
	h.statusJSON(&st)
	if st.UpdatedReplicas != 3 || st.CurrentRevision != st.UpdateRevision {
		t.Errorf("status after the rollout: %+v", st)
	}
}
