package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/ostset/ostset/config"
)

var (
	me      = Owner{ID: "me", Dir: "/state/me"}
	adopted = Owner{ID: "adopted", Dir: "/state/old"}
	other   = Owner{ID: "other", Dir: "/state/other"}
	// earlier is this state directory's path under an identity it no longer has.
	earlier = Owner{ID: "earlier", Dir: me.Dir}
	mine    = Ownership{Self: me, Adopted: []Owner{adopted}}
)

func owned(r Replica, o Owner) Replica { r.Owner = o; return r }

func vol(ord int, o Owner) Volume {
	return Volume{Name: "data-" + ReplicaName("web", ord), Claim: "data", Ordinal: ord, Owner: o}
}

func TestOwns(t *testing.T) {
	for _, c := range []struct {
		owner Owner
		want  bool
	}{
		{me, true},
		{Owner{ID: "me", Dir: "/moved"}, true}, // the ID decides, not the path
		{adopted, true},
		{Owner{}, true}, // made before owner labels
		{other, false},
		{earlier, false},
	} {
		if got := mine.Owns(c.owner); got != c.want {
			t.Errorf("Owns(%+v) = %v, want %v", c.owner, got, c.want)
		}
	}
	if (Ownership{}).Owns(other) {
		t.Error("the zero Ownership owns a labelled object")
	}
}

func TestClassify(t *testing.T) {
	obs := Observed{
		Replicas: []Replica{owned(ok(0, "b"), me), ok(1, "b"), owned(ok(2, "b"), adopted), owned(ok(3, "b"), other)},
		Volumes:  []Volume{vol(0, me), vol(1, Owner{}), vol(2, adopted), vol(3, other), vol(4, earlier)},
		Foreign:  []Foreign{{ID: "f00", Name: "web-9"}},
	}
	got := mine.Classify("web", obs)
	var names []string
	for _, r := range got.Replicas {
		names = append(names, r.Name)
	}
	for _, v := range got.Volumes {
		names = append(names, v.Name)
	}
	if want := []string{"web-0", "web-1", "web-2", "data-web-0", "data-web-1", "data-web-2"}; !slices.Equal(names, want) {
		t.Errorf("own objects %v, want %v", names, want)
	}
	if len(got.Foreign) != 1 || len(obs.Replicas) != 4 {
		t.Errorf("foreign %v, or the input changed: %v", got.Foreign, obs.Replicas)
	}
	want := []struct{ kind, name, message, resolve string }{
		{"container", "web-3",
			"container web-3 (id-web-3) belongs to set web of state directory /state/other (id other), not to this one",
			"to take the set over on purpose, forget it there ('ostset down web --cascade=orphan --state-dir /state/other') and run 'ostset up --adopt -f FILE' here"},
		{"volume", "data-web-3",
			"volume data-web-3 belongs to set web of state directory /state/other (id other), not to this one",
			"to take the set over on purpose, forget it there ('ostset down web --cascade=orphan --state-dir /state/other') and run 'ostset up --adopt -f FILE' here"},
		{"volume", "data-web-4",
			"volume data-web-4 belongs to set web of an earlier identity of state directory /state/me (id earlier; it is me now), not to this one",
			"to take the set over on purpose, run 'ostset up --adopt -f FILE' here"},
	}
	if len(got.OwnedElsewhere) != len(want) {
		t.Fatalf("owned elsewhere: %+v", got.OwnedElsewhere)
	}
	for i, w := range want {
		c := got.OwnedElsewhere[i]
		if c.Kind != w.kind || c.Name != w.name || c.Message != w.message || c.Resolve != w.resolve {
			t.Errorf("conflict %d:\n%+v\nwant %+v", i, c, w)
		}
	}
	if o := (&OwnershipError{Conflicts: got.OwnedElsewhere}).Owners(); !slices.Equal(o, []Owner{other, earlier}) {
		t.Errorf("owners %v", o)
	}
}

// Golden plans: another state directory's container or volume holds the whole
// set, in both policies, whatever else the plan would do; adopted and unlabelled
// objects are the set's own.
func TestPlanOwnedElsewhere(t *testing.T) {
	whenScaledDelete := func(s *config.Set) { s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete }
	withClaim := func(s *config.Set) {
		s.VolumeClaimTemplates = []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}
	}
	held := "wait set web: %s to state directory /state/other (id other); nothing is done to the set from this state directory; " +
		"to take the set over on purpose, forget it there ('ostset down web --cascade=orphan --state-dir /state/other') and run 'ostset up --adopt -f FILE' here\n"
	cases := []struct {
		name string
		set  config.Set
		cur  string
		obs  Observed
		want string
	}{
		{name: "another owner's replicas: nothing is created, removed or updated",
			set: testSet(replicas(2), withClaim), cur: "a",
			obs:  Observed{Replicas: []Replica{owned(ok(0, "a"), other), owned(ok(1, "a"), other), owned(ok(2, "a"), other)}},
			want: strings.Replace(held, "%s", "container web-0, container web-1, and container web-2 belong", 1)},
		{name: "another owner's volume blocks its ordinal's creation, and the rest of the set",
			set: testSet(parallel, withClaim), cur: "b",
			obs:  Observed{Volumes: []Volume{vol(1, other)}},
			want: strings.Replace(held, "%s", "volume data-web-1 belongs", 1)},
		{name: "another owner's volume is never removed by whenScaled Delete",
			set: testSet(whenScaledDelete, withClaim), cur: "b",
			obs:  Observed{Replicas: okN(3, "b"), Volumes: []Volume{vol(3, other)}},
			want: strings.Replace(held, "%s", "volume data-web-3 belongs", 1)},
		{name: "a long list is cut short",
			set: testSet(parallel), cur: "b",
			obs: Observed{Replicas: []Replica{owned(ok(0, "b"), other), owned(ok(1, "b"), other), owned(ok(2, "b"), other)},
				Volumes: []Volume{vol(0, other), vol(1, other), vol(2, other), vol(3, other), vol(4, other), vol(5, other), vol(6, other)}},
			want: strings.Replace(held, "%s", "container web-0, container web-1, container web-2, volume data-web-0, volume data-web-1, "+
				"volume data-web-2, volume data-web-3, volume data-web-4, and 2 more belong", 1)},
		{name: "another owner's init container holds the set too",
			set: testSet(), cur: "b",
			obs: Observed{Replicas: okN(1, "b"), Inits: []InitContainer{func() InitContainer {
				c := ini(1, "clone", "b", StateRunning, 0)
				c.Owner = other
				return c
			}()}},
			want: strings.Replace(held, "%s", "container web-1-init-clone belongs", 1)},
		{name: "adopted and unlabelled replicas are the set's own",
			set: testSet(), cur: "b",
			obs:  Observed{Replicas: []Replica{owned(ok(0, "b"), adopted), ok(1, "b"), owned(ok(2, "b"), me)}},
			want: "complete\n"},
		{name: "an adopted owner's replica is updated like any other",
			set: testSet(), cur: "a",
			obs:  Observed{Replicas: []Replica{owned(ok(0, "a"), adopted), owned(ok(1, "a"), adopted), owned(ok(2, "a"), adopted)}},
			want: "delete web-2: update a -> b\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Set: c.set, CurrentRevision: c.cur, UpdateRevision: "b", Observed: mine.Classify("web", c.obs), Now: t0}
			if got := MakePlan(in).String(); got != c.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestStatusConflicts(t *testing.T) {
	obs := Observed{Replicas: []Replica{ok(0, "b"), owned(ok(1, "b"), other)}, Volumes: []Volume{vol(1, other)},
		Foreign: []Foreign{{ID: "f00", Name: "web-2"}}}
	s := MakePlan(Input{Set: testSet(), CurrentRevision: "b", UpdateRevision: "b", Observed: mine.Classify("web", obs), Now: t0}).Status
	if want := []string{"web-2", "web-1", "data-web-1"}; !slices.Equal(s.Conflicts, want) {
		t.Errorf("conflicts %v, want %v", s.Conflicts, want)
	}
	if len(s.ConflictDetails) != 3 || s.ConflictDetails[0].Message != "web-2: the name is held by container f00, which set web does not own" ||
		s.ConflictDetails[1].Owner != other || s.ConflictDetails[2].Kind != "volume" {
		t.Errorf("details %+v", s.ConflictDetails)
	}
	if len(s.Containers) != 1 || s.ReadyReplicas != 1 {
		t.Errorf("another owner's replica counted: %+v", s)
	}
}

func TestLabelSpec(t *testing.T) {
	s := testSet(func(s *config.Set) {
		s.VolumeClaimTemplates = []config.VolumeClaimTemplate{{Name: "data", MountPath: "/data"}}
	})
	spec := s.RevisionSpec("sha256:img")
	rev := config.RevisionName("web", spec.Hash())
	r, err := Render(s, rev, spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	me.Label(&r)
	if r.Labels[LabelOwner] != "me" || r.Labels[LabelStateDir] != "/state/me" || r.Labels[LabelRevision] != rev {
		t.Errorf("replica labels %v", r.Labels)
	}
	if l := r.Volumes[0].Labels; l[LabelOwner] != "me" || l[LabelStateDir] != "/state/me" || l[LabelClaim] != "data" {
		t.Errorf("volume labels %v", l)
	}
}
