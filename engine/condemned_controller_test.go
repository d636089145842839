package engine_test

import (
	"context"

	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// applyRetention stores web (Parallel, a claim data) with the given replicas and
// whenScaled, as ostset up of a set file does.
func applyRetention(t *testing.T, store state.Store, replicas int, whenScaled string) {
	t.Helper()
	s := config.Set{Name: "web", Replicas: &replicas, Template: config.Template{Image: "v1"}, PodManagementPolicy: config.Parallel,
		VolumeClaimTemplates: []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}}
	s.PersistentVolumeClaimRetentionPolicy.WhenScaled = whenScaled
	s.ApplyDefaults()
	storeSpec(t, store, s)
}

func volumeNames(t *testing.T, rt *enginetest.Runtime) []string {
	t.Helper()
	obs, err := rt.Observe(context.Background(), "web", engine.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range obs.Volumes {
		names = append(names, v.Name)
	}
	return names
}

func newRetentionController(t *testing.T, replicas int, whenScaled string) (*engine.Controller, *enginetest.Runtime) {
	t.Helper()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	applyRetention(t, c.Store, replicas, whenScaled)
	converge(t, c)
	return c, rt
}

// The volumes ostset down kept are not removed by the up that brings the set
// back, whenScaled: Delete or not: only the volumes of the replicas a
// scale-down of the set condemned go.
func TestUpKeepsVolumesDownKept(t *testing.T) {
	all := []string{"data-web-0", "data-web-1", "data-web-2", "data-web-3"}
	t.Run("scaled up, down, up again", func(t *testing.T) {
		c, rt := newRetentionController(t, 2, config.Delete)
		applyRetention(t, c.Store, 4, config.Delete)
		converge(t, c)
		if err := c.Delete(context.Background(), "web", false); err != nil {
			t.Fatal(err)
		}
		applyRetention(t, c.Store, 2, config.Delete)
		converge(t, c)
		if got := volumeNames(t, rt); !slices.Equal(got, all) {
			t.Fatalf("volumes %v after up, want %v", got, all)
		}
	})
	t.Run("down under Retain, up with fewer replicas and Delete", func(t *testing.T) {
		c, rt := newRetentionController(t, 3, config.Retain)
		if err := c.Delete(context.Background(), "web", false); err != nil {
			t.Fatal(err)
		}
		applyRetention(t, c.Store, 1, config.Delete)
		converge(t, c)
		if got, want := volumeNames(t, rt), all[:3]; !slices.Equal(got, want) {
			t.Fatalf("volumes %v after up, want %v", got, want)
		}
	})
	t.Run("a scale-down under Retain, then Delete", func(t *testing.T) {
		c, rt := newRetentionController(t, 3, config.Retain)
		applyRetention(t, c.Store, 1, config.Retain)
		converge(t, c)
		applyRetention(t, c.Store, 1, config.Delete)
		converge(t, c)
		if got, want := volumeNames(t, rt), all[:3]; !slices.Equal(got, want) {
			t.Fatalf("volumes %v, want %v", got, want)
		}
	})
}

// A scale-down under whenScaled: Delete removes the condemned replicas'
// volumes, also when the pass that removed a replica was cut short, and forgets
// the record once they are gone.
func TestScaleDownRemovesCondemnedVolumes(t *testing.T) {
	c, rt := newRetentionController(t, 4, config.Delete)
	rt.FailRemove = "web-3" // the pass dies after its record, before web-3 is removed
	applyRetention(t, c.Store, 2, config.Delete)
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("pass with a failing remove succeeded")
	}
	st, _ := c.Store.Load("web")
	if !slices.Equal(st.CondemnedVolumes, []int{2, 3}) {
		t.Fatalf("recorded %v before the removals, want [2 3]", st.CondemnedVolumes)
	}
	converge(t, c)
	if got, want := volumeNames(t, rt), []string{"data-web-0", "data-web-1"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v, want %v", got, want)
	}
	if _, err := c.Pass(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.Store.Load("web"); st.CondemnedVolumes != nil {
		t.Errorf("record %v left once the volumes are gone", st.CondemnedVolumes)
	}
}

// A scale back up before a condemned volume is removed cancels its removal:
// the ordinal comes back with its volume, as in Kubernetes.
func TestScaleUpCancelsCondemnedVolume(t *testing.T) {
	c, rt := newRetentionController(t, 2, config.Delete)
	rt.FailRemove = "web-1"
	applyRetention(t, c.Store, 1, config.Delete)
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("pass with a failing remove succeeded")
	}
	applyRetention(t, c.Store, 2, config.Delete)
	converge(t, c)
	if got, want := volumeNames(t, rt), []string{"data-web-0", "data-web-1"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v, want %v", got, want)
	}
	if st, _ := c.Store.Load("web"); st.CondemnedVolumes != nil {
		t.Errorf("record %v left after the scale up", st.CondemnedVolumes)
	}
	// Scaled down later under Retain, nothing is removed.
	applyRetention(t, c.Store, 1, config.Retain)
	converge(t, c)
	applyRetention(t, c.Store, 1, config.Delete)
	converge(t, c)
	if got, want := volumeNames(t, rt), []string{"data-web-0", "data-web-1"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v, want %v", got, want)
	}
}

// A delete of the set (ostset down, volumes kept) that follows a scale-down cut
// short removes the condemned replicas' volumes rather than keeping them.
func TestDownRemovesPendingCondemnedVolumes(t *testing.T) {
	c, rt := newRetentionController(t, 3, config.Delete)
	rt.FailRemove = "web-2"
	applyRetention(t, c.Store, 1, config.Delete)
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("pass with a failing remove succeeded")
	}
	if err := c.Delete(context.Background(), "web", false); err != nil {
		t.Fatal(err)
	}
	if got, want := volumeNames(t, rt), []string{"data-web-0"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v after down, want %v", got, want)
	}
}

// A replica condemned while its init containers still run is condemned all the
// same: under whenScaled: Delete its volume goes once they are removed.
func TestScaleDownDuringInitRemovesItsVolume(t *testing.T) {
	rt := enginetest.New()
	s := initSet(2, "clone")
	s.PodManagementPolicy = config.Parallel
	s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete
	c, _ := initController(t, rt, s)
	if _, err := c.Pass(context.Background(), "web"); err != nil { // both ordinals start their first init container
		t.Fatal(err)
	}
	if got, want := volumeNames(t, rt), []string{"data-web-0", "data-web-1"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v while initializing, want %v", got, want)
	}
	s.Replicas = ptr(1)
	applySet(t, c, s)
	for range 4 {
		if _, err := c.Pass(context.Background(), "web"); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := volumeNames(t, rt), []string{"data-web-0"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v after scaling down a replica that was initializing, want %v", got, want)
	}
}

// Under whenScaled: Delete a condemned replica removed otherwise than by the
// scale-down (by hand, before its turn in OrderedReady) takes its volume
// along: the pass that reached the scale-down recorded every condemned
// ordinal, as Kubernetes marks every condemned pod's claims.
func TestCondemnedReplicaRemovedByHandTakesItsVolume(t *testing.T) {
	c, rt := newRetentionController(t, 3, config.Delete)
	st, _ := c.Store.Load("web")
	st.Spec.PodManagementPolicy = config.OrderedReady
	st.Spec.Replicas = ptr(1)
	storeSpec(t, c.Store, st.Spec)
	if _, err := c.Pass(context.Background(), "web"); err != nil { // removes web-2
		t.Fatal(err)
	}
	if st, _ := c.Store.Load("web"); !slices.Equal(st.CondemnedVolumes, []int{1, 2}) {
		t.Fatalf("recorded %v, want [1 2]", st.CondemnedVolumes)
	}
	rt.Destroy("web-1")
	converge(t, c)
	if got, want := volumeNames(t, rt), []string{"data-web-0"}; !slices.Equal(got, want) {
		t.Fatalf("volumes %v, want %v", got, want)
	}
}

// A condemned replica gone, its ordinal back in the range before its volume
// was removed: the volume is removed before any replica is created
// (Kubernetes' garbage collector deleted the claim with the pod), so that the
// ordinal's new replica gets a new one, never the one being removed; a
// removal that fails creates nothing.
func TestCondemnedVolumeGoesBeforeItsOrdinalComesBack(t *testing.T) {
	c, rt := newRetentionController(t, 3, config.Delete)
	applyRetention(t, c.Store, 0, config.Delete)
	if _, err := c.Pass(context.Background(), "web"); err != nil { // removes every replica, their volumes left
		t.Fatal(err)
	}
	applyRetention(t, c.Store, 3, config.Delete)
	rt.FailRemoveVolume = "data-web-1"
	if _, err := c.Pass(context.Background(), "web"); err == nil {
		t.Fatal("pass with a failing volume removal succeeded")
	}
	if got := rt.Replicas(); len(got) > 0 {
		t.Fatalf("replicas %v created while a volume of a returning ordinal could not be removed", got)
	}
	rt.Log = nil
	converge(t, c)
	all := []string{"data-web-0", "data-web-1", "data-web-2"}
	if got := volumeNames(t, rt); !slices.Equal(got, all) {
		t.Fatalf("volumes %v, want %v", got, all)
	}
	removed := slices.Index(rt.Log, "remove volume data-web-1")
	created := slices.IndexFunc(rt.Log, func(l string) bool { return strings.HasPrefix(l, "create web-1") })
	if removed < 0 || created < removed {
		t.Errorf("data-web-1 removed at %d, web-1 created at %d of %q", removed, created, rt.Log)
	}
}
