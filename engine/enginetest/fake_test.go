package enginetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
)

// The fake follows the pull policies as the Docker runtime does.
func TestEnsureImagePolicies(t *testing.T) {
	ctx := context.Background()
	r := New()
	r.Local = map[string]string{"app:1": "sha256:old"}
	r.Registry = map[string]string{"app:1": "sha256:new", "db:1": "sha256:db"}

	if id, err := r.EnsureImage(ctx, "app:1", config.PullIfNotPresent, nil); id != "sha256:old" || err != nil {
		t.Errorf("IfNotPresent, present: %q, %v; want the local ID and no pull", id, err)
	}
	var steps []string
	progress := func(p engine.PullProgress) { steps = append(steps, p.State) }
	if id, err := r.EnsureImage(ctx, "db:1", "", progress); id != "sha256:db" || err != nil {
		t.Errorf("IfNotPresent, missing: %q, %v; want the pulled ID", id, err)
	}
	if want := []string{engine.PullStarted, engine.LayerComplete}; !slices.Equal(steps, want) {
		t.Errorf("progress %v, want %v", steps, want)
	}
	if id, err := r.EnsureImage(ctx, "app:1", config.PullAlways, nil); id != "sha256:new" || err != nil {
		t.Errorf("Always: %q, %v; want the registry's ID", id, err)
	}
	var ie *engine.ImageError
	if _, err := r.EnsureImage(ctx, "gone:1", config.PullNever, nil); !errors.As(err, &ie) || !errors.Is(err, engine.ErrNeverPull) {
		t.Errorf("Never, missing: %v; want an ImageError for ErrNeverPull", err)
	}
	if _, err := r.EnsureImage(ctx, "gone:1", config.PullAlways, nil); !errors.As(err, &ie) || ie.Image != "gone:1" {
		t.Errorf("pull of an unknown tag: %v; want an ImageError naming the image", err)
	}
	if want := []string{"pull db:1", "pull app:1", "pull gone:1"}; !slices.Equal(r.Log, want) {
		t.Errorf("log %v, want %v", r.Log, want)
	}
}
