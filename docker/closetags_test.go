package docker

import (
	"context"
	"errors"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
)

// taggedImages is fakeImages with local tags to list.
type taggedImages struct {
	*fakeImages
	tags []string
}

func (t taggedImages) localTags(context.Context, string) ([]string, error) { return t.tags, nil }

// A missing local tag suggests the local tags that are close.
func TestMissingTagSuggestsLocalTags(t *testing.T) {
	im := taggedImages{&fakeImages{local: map[string]string{}}, []string{"demo", "v1"}}
	_, err := ensureImage(context.Background(), im, "ostset/web:dmeo", config.PullNever, nil)
	want := "ostset/web:dmeo: not present locally, and imagePullPolicy is Never: build, load or import it first; did you mean ostset/web:demo? (local tags of ostset/web: demo, v1)"
	if ie := (*engine.ImageError)(nil); !errors.As(err, &ie) || err.Error() != want || !errors.Is(err, engine.ErrNeverPull) {
		t.Errorf("got %v\nwant %s (an ImageError)", err, want)
	}
}
