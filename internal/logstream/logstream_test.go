package logstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// fakeSource has the replicas web-0, web-1 and web-10; web-1 is gone by the
// time its logs are read, and web-10's output has no last newline.
type fakeSource struct{ tails []string }

func (f *fakeSource) Observe(context.Context, string, engine.ObserveOptions) (plan.Observed, error) {
	return plan.Observed{
		Replicas: []plan.Replica{{ID: "a", Name: "web-0", Ordinal: 0}, {ID: "b", Name: "web-1", Ordinal: 1}, {ID: "c", Name: "web-10", Ordinal: 10}},
		Inits:    []plan.InitContainer{{ID: "i", Name: "web-1-init-migrate", Ordinal: 1, Init: "migrate"}},
	}, nil
}

func (f *fakeSource) Logs(_ context.Context, _, id string, _ bool, tail string) (io.ReadCloser, error) {
	f.tails = append(f.tails, tail)
	switch id {
	case "a":
		return io.NopCloser(strings.NewReader("one\ntwo\n")), nil
	case "c":
		return io.NopCloser(strings.NewReader("ten")), nil
	case "i":
		return io.NopCloser(strings.NewReader("migrated\n")), nil
	}
	return nil, fmt.Errorf("container %s: %w", id, cerrdefs.ErrNotFound)
}

func TestPrintWholeSet(t *testing.T) {
	var out strings.Builder
	src := &fakeSource{}
	if err := Print(context.Background(), src, &out, Target{Set: "web", Whole: true, Name: "web"}, Options{Tail: "5"}); err != nil {
		t.Fatal(err)
	}
	want := "web-0  | one\nweb-0  | two\nweb-10 | ten\n"
	if out.String() != want {
		t.Errorf("logs:\n%q\nwant\n%q", out.String(), want)
	}
	if strings.Join(src.tails, ",") != "5,5,5" {
		t.Errorf("tails asked: %q", src.tails)
	}
}

func TestPrintOneReplicaAndInit(t *testing.T) {
	var out strings.Builder
	err := Print(context.Background(), &fakeSource{}, &out, Target{Set: "web", Ordinal: 1, Name: "web-1"}, Options{NoPrefix: true})
	if !cerrdefs.IsNotFound(err) {
		t.Errorf("a replica gone named alone: %v", err)
	}
	out.Reset()
	if err := Print(context.Background(), &fakeSource{}, &out, Target{Set: "web", Ordinal: 1, Name: "web-1", Init: "migrate"}, Options{NoPrefix: true}); err != nil || out.String() != "migrated\n" {
		t.Errorf("init output %q, %v", out.String(), err)
	}
	err = Print(context.Background(), &fakeSource{}, &out, Target{Set: "web", Ordinal: 0, Name: "web-0", Init: "migrate"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "has no init container migrate now") {
		t.Errorf("init container gone: %v", err)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("closed")
}

// A failed write is reported once, and stops the other streams.
func TestPrintStopsOnAFailedWrite(t *testing.T) {
	w := &failingWriter{}
	err := Print(context.Background(), &fakeSource{}, w, Target{Set: "web", Whole: true}, Options{})
	if err == nil || err.Error() != "write logs: closed" || w.n != 1 {
		t.Errorf("err %v after %d writes", err, w.n)
	}
}

// setsSource has one replica per set, each saying its set; it reads a
// container's output only under its own set's name.
type setsSource struct{}

func (setsSource) Observe(_ context.Context, set string, _ engine.ObserveOptions) (plan.Observed, error) {
	return plan.Observed{Replicas: []plan.Replica{{ID: set, Name: set + "-0"}}}, nil
}

func (setsSource) Logs(_ context.Context, set, id string, _ bool, _ string) (io.ReadCloser, error) {
	if set != id {
		return nil, fmt.Errorf("container %s is not of set %s", id, set)
	}
	return io.NopCloser(strings.NewReader("I am " + set + "\n")), nil
}

// Several sets (logs -l): every replica of each, prefixed alike.
func TestPrintSeveralSets(t *testing.T) {
	var out strings.Builder
	if err := Print(context.Background(), setsSource{}, &out, Target{Set: "web", Whole: true, Name: "web", More: []string{"cache"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "web-0   | I am web\ncache-0 | I am cache\n"; out.String() != want {
		t.Errorf("logs:\n%q\nwant\n%q", out.String(), want)
	}
}
