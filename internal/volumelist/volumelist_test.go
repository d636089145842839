package volumelist

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// bySet is a runtime whose sets' volumes and replicas are given per set.
type bySet struct {
	*enginetest.Runtime
	obs map[string]plan.Observed
}

func (r bySet) Observe(_ context.Context, set string, _ engine.ObserveOptions) (plan.Observed, error) {
	return r.obs[set], nil
}

func (r bySet) VolumeSets(context.Context) ([]string, error) {
	return slices.Sorted(maps.Keys(r.obs)), nil
}

func (r bySet) VolumeSizes(context.Context) (map[string]int64, error) {
	return map[string]int64{"data-gone-0": 2048}, nil
}

// The volumes that down kept of a deleted set are listed, by their labels,
// as well as the stored sets'; another state directory's are not.
func TestKeptVolumesOfADeletedSetAreListed(t *testing.T) {
	store := state.Store{Dir: t.TempDir()}
	self, err := store.Owner()
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	web := config.Set{Name: "web", Replicas: &one, Template: config.Template{Image: "x"}}
	web.ApplyDefaults()
	if err := store.Save(state.State{Spec: web}); err != nil {
		t.Fatal(err)
	}
	created := time.Now().Add(-time.Hour)
	vol := func(set string, ord int, owner plan.Owner) plan.Volume {
		return plan.Volume{Name: "data-" + plan.ReplicaName(set, ord), Claim: "data", Ordinal: ord, Created: created, Owner: owner}
	}
	other := plan.Owner{ID: "0123456789abcdef", Dir: "/elsewhere"}
	rt := bySet{Runtime: enginetest.New(), obs: map[string]plan.Observed{
		"web": {Volumes: []plan.Volume{vol("web", 0, self)},
			Replicas: []plan.Replica{{Name: "web-0", Ordinal: 0, Owner: self}}},
		"gone":   {Volumes: []plan.Volume{vol("gone", 1, self), vol("gone", 0, self)}},
		"theirs": {Volumes: []plan.Volume{vol("theirs", 0, other)}},
	}}
	c := &engine.Controller{Runtime: rt, Store: store}
	ctx := context.Background()
	var notes []string
	note := func(s string) { notes = append(notes, s) }

	rows, err := Rows(ctx, c, rt, "", note)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Name+"/"+r.UsedBy+"/"+map[bool]string{true: "deleted"}[r.SetDeleted])
	}
	want := []string{"data-gone-0//deleted", "data-gone-1//deleted", "data-web-0/web-0/"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("volumes: %q, want %q", got, want)
	}
	if rows[0].Size == nil || *rows[0].Size != 2048 {
		t.Errorf("the size of data-gone-0: %v", rows[0].Size)
	}

	var out, errs bytes.Buffer
	if err := Print(&out, &errs, rows, "", created.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "kept (set deleted)") || !strings.Contains(errs.String(), "'ostset down gone --volumes' removes them") {
		t.Errorf("table:\n%s\nnotes:\n%s", out.String(), errs.String())
	}

	rows, err = Rows(ctx, c, rt, "gone", note)
	if err != nil || len(rows) != 2 || !rows[0].SetDeleted {
		t.Errorf("volumes gone: %+v, %v", rows, err)
	}
	for _, set := range []string{"theirs", "nosuch"} {
		if _, err := Rows(ctx, c, rt, set, note); !errors.Is(err, state.ErrUnknownSet) {
			t.Errorf("volumes %s: %v, want unknown set", set, err)
		}
	}
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
}
