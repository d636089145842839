package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/internal/suggest"
)

// tagLister lists the local tags of a repository (engineImages does).
type tagLister interface {
	localTags(ctx context.Context, repo string) ([]string, error)
}

func (e engineImages) localTags(ctx context.Context, repo string) ([]string, error) {
	res, err := e.cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("reference", repo)})
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, img := range res.Items {
		for _, rt := range img.RepoTags {
			if r, tag, ok := splitTag(rt); ok && r == repo && !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
		}
	}
	slices.Sort(tags)
	return tags, nil
}

// splitTag cuts "ostset/web:demo" into "ostset/web" and "demo"; a reference
// without a tag (or with a digest) is not cut.
func splitTag(ref string) (repo, tag string, ok bool) {
	if strings.Contains(ref, "@") {
		return "", "", false
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return "", "", false
	}
	return ref[:i], ref[i+1:], true
}

// withCloseTags adds to the error about a missing image the local tags of
// its repository, and the one its tag most likely misspells: a missing
// "ostset/web:dmeo" is far more often a typo of a local tag than an image
// a registry has.
func withCloseTags(ctx context.Context, im images, ref string, err error) error {
	tl, ok := im.(tagLister)
	repo, tag, cut := splitTag(ref)
	if !ok || !cut {
		return err
	}
	tags, lerr := tl.localTags(ctx, repo)
	if lerr != nil || len(tags) == 0 {
		return err
	}
	hint := fmt.Sprintf("local tags of %s: %s", repo, strings.Join(tags, ", "))
	if best := suggest.Closest(tag, tags); best != "" {
		hint = fmt.Sprintf("did you mean %s:%s? (%s)", repo, best, hint)
	}
	if ie := (*engine.ImageError)(nil); errors.As(err, &ie) {
		return &engine.ImageError{Image: ie.Image, Err: fmt.Errorf("%w; %s", ie.Err, hint)}
	}
	return fmt.Errorf("%w; %s", err, hint)
}
