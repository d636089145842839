package docker

import (
	"context"
	"errors"
	"github.com/ostset/ostset/docker/registryauth"
	"iter"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/jsonstream"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
)

// fakeImages is an engine with local images and a registry that answers
// pulls with a scripted message stream.
type fakeImages struct {
	local    map[string]string // ref -> ID
	remote   map[string]string // ref -> ID a pull brings
	stream   []jsonstream.Message
	pullErr  error // returned by the pull request itself
	credsErr error
	pulls    []string
}

func (f *fakeImages) localID(_ context.Context, ref string) (string, error) {
	return f.local[ref], nil
}

func (f *fakeImages) pull(_ context.Context, ref string, _ registryauth.Creds) (iter.Seq2[jsonstream.Message, error], error) {
	f.pulls = append(f.pulls, ref)
	if f.pullErr != nil {
		return nil, f.pullErr
	}
	return func(yield func(jsonstream.Message, error) bool) {
		for _, m := range f.stream {
			if m.Error != nil {
				yield(m, nil)
				return
			}
			if !yield(m, nil) {
				return
			}
		}
		if id, ok := f.remote[ref]; ok {
			f.local[ref] = id
		}
	}, nil
}

func (f *fakeImages) credentials(string) (registryauth.Creds, error) {
	return registryauth.Creds{Host: "reg.example:5000", Config: "/home/u/.docker/config.json"}, f.credsErr
}

func layerMsg(status, id string, current, total int64) jsonstream.Message {
	m := jsonstream.Message{Status: status, ID: id}
	if total > 0 {
		m.Progress = &jsonstream.Progress{Current: current, Total: total}
	}
	return m
}

// A pull of a new layer as the 20.10 engine reports it.
var pullStream = []jsonstream.Message{
	{Status: "Pulling from app", ID: "1"},
	layerMsg("Already exists", "aaa", 0, 0),
	layerMsg("Pulling fs layer", "bbb", 0, 0),
	layerMsg("Waiting", "bbb", 0, 0),
	layerMsg("Downloading", "bbb", 1000, 3000),
	layerMsg("Verifying Checksum", "bbb", 0, 0),
	layerMsg("Download complete", "bbb", 0, 0),
	layerMsg("Extracting", "bbb", 2000, 3000),
	layerMsg("Pull complete", "bbb", 0, 0),
	{Status: "Digest: sha256:1bf8"},
	{Status: "Status: Downloaded newer image for reg.example:5000/app:1"},
}

func TestEnsureImagePolicies(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, policy string
		local        bool
		wantID       string
		wantPull     bool
		wantErr      string
	}{
		{"IfNotPresent, present", config.PullIfNotPresent, true, "sha256:old", false, ""},
		{"IfNotPresent, missing", config.PullIfNotPresent, false, "sha256:new", true, ""},
		{"default, missing", "", false, "sha256:new", true, ""},
		{"Always, present", config.PullAlways, true, "sha256:new", true, ""},
		{"Never, present", config.PullNever, true, "sha256:old", false, ""},
		{"Never, missing", config.PullNever, false, "", false, "reg.example:5000/app:1: not present locally, and imagePullPolicy is Never"},
	}
	const ref = "reg.example:5000/app:1"
	for _, tt := range tests {
		f := &fakeImages{local: map[string]string{}, remote: map[string]string{ref: "sha256:new"}, stream: pullStream}
		if tt.local {
			f.local[ref] = "sha256:old"
		}
		var steps []engine.PullProgress
		id, err := ensureImage(ctx, f, ref, tt.policy, func(p engine.PullProgress) { steps = append(steps, p) })
		if id != tt.wantID || (len(f.pulls) > 0) != tt.wantPull {
			t.Errorf("%s: ID %q, pulls %v; want %q, pull %v", tt.name, id, f.pulls, tt.wantID, tt.wantPull)
		}
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
		if tt.wantErr != "" {
			if ie := (*engine.ImageError)(nil); !errors.As(err, &ie) || !errors.Is(err, engine.ErrNeverPull) {
				t.Errorf("%s: error is %T, want *engine.ImageError for ErrNeverPull", tt.name, err)
			}
		}
		if tt.wantPull && (len(steps) == 0 || steps[0].State != engine.PullStarted) {
			t.Errorf("%s: progress %+v, want it to begin with %q", tt.name, steps, engine.PullStarted)
		}
		if !tt.wantPull && len(steps) > 0 {
			t.Errorf("%s: progress without a pull: %+v", tt.name, steps)
		}
	}
}

func TestEnsureImagePullFailures(t *testing.T) {
	ctx := context.Background()
	const ref = "reg.example:5000/app:1"
	tests := []struct {
		name      string
		f         fakeImages
		want      string
		imageErr  bool
		wantSteps int
	}{{
		name:     "unknown tag (the request fails)",
		f:        fakeImages{pullErr: errors.New("Error response from daemon: manifest for reg.example:5000/app:1 not found: manifest unknown: manifest unknown")},
		want:     ref + ": manifest for reg.example:5000/app:1 not found: manifest unknown: manifest unknown",
		imageErr: true,
	}, {
		name:     "anonymous and refused: the hint says where credentials were looked for",
		f:        fakeImages{pullErr: errors.New(`Error response from daemon: Head "http://reg.example:5000/v2/app/manifests/1": no basic auth credentials`)},
		want:     ref + `: Head "http://reg.example:5000/v2/app/manifests/1": no basic auth credentials (no credentials for reg.example:5000 in /home/u/.docker/config.json)`,
		imageErr: true,
	}, {
		name: "failure in the stream",
		f: fakeImages{stream: []jsonstream.Message{
			layerMsg("Pulling fs layer", "bbb", 0, 0),
			{Error: &jsonstream.Error{Message: "unexpected EOF"}},
		}},
		want:      ref + ": unexpected EOF",
		imageErr:  true,
		wantSteps: 2,
	}, {
		name:     "credentials that cannot be read",
		f:        fakeImages{credsErr: errors.New("read the Docker config /x/config.json: decode config: invalid character")},
		want:     ref + ": read the Docker config /x/config.json: decode config: invalid character",
		imageErr: true,
	}, {
		// A registry that cannot be reached is a runtime failure (exit 1),
		// not a problem with the set's image (exit 2).
		name:     "registry unreachable",
		f:        fakeImages{pullErr: errors.New(`Error response from daemon: Get "https://gcr.io/v2/": dial tcp: lookup gcr.io on 10.0.0.2:53: no such host`)},
		want:     "pull " + ref + `: the registry cannot be reached: Get "https://gcr.io/v2/": dial tcp: lookup gcr.io on 10.0.0.2:53: no such host`,
		imageErr: false,
	}, {
		name: "pulled, yet not there",
		f:    fakeImages{stream: pullStream},
		want: "image " + ref + " is not present after pulling it",
		// The engine's own inconsistency, not the set's fault.
		imageErr:  false,
		wantSteps: 9,
	}}
	for _, tt := range tests {
		f := tt.f
		f.local = map[string]string{}
		steps := 0
		_, err := ensureImage(ctx, &f, ref, config.PullAlways, func(engine.PullProgress) { steps++ })
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
		if ie := (*engine.ImageError)(nil); errors.As(err, &ie) != tt.imageErr {
			t.Errorf("%s: ImageError %v, want %v", tt.name, !tt.imageErr, tt.imageErr)
		}
		if steps != tt.wantSteps && tt.wantSteps > 0 {
			t.Errorf("%s: %d progress steps, want %d", tt.name, steps, tt.wantSteps)
		}
	}
}

// A cancelled pull is not the image's fault (no ImageError: not exit code 2).
func TestEnsureImageCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeImages{local: map[string]string{}, pullErr: context.Canceled}
	_, err := ensureImage(ctx, f, "app:1", config.PullAlways, nil)
	if ie := (*engine.ImageError)(nil); err == nil || errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled pull: %v (%T)", err, err)
	}
}

func TestPullStep(t *testing.T) {
	var got []string
	for _, m := range append(pullStream, jsonstream.Message{Status: "Status: Image is up to date for reg.example:5000/app:1"}) {
		if p, ok := pullStep("app", m); ok {
			got = append(got, strings.TrimSpace(strings.Join([]string{p.Layer, p.State, strconv.FormatInt(p.Current, 10), strconv.FormatInt(p.Total, 10), map[bool]string{true: "existed"}[p.Existed]}, " ")))
		}
	}
	want := []string{
		"aaa complete 0 0 existed",
		"bbb waiting 0 0",
		"bbb waiting 0 0",
		"bbb downloading 1000 3000",
		"bbb downloaded 0 0",
		"bbb downloaded 0 0",
		"bbb extracting 2000 3000",
		"bbb complete 0 0",
		"up to date 0 0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
