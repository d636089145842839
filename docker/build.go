package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ostset/ostset/docker/registryauth"
	"io"
	"os"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/go-archive"
	"github.com/moby/moby/client"
	"github.com/moby/patternmatcher/ignorefile"
)

// BuildOptions are what the engine's build API (the legacy builder) takes
// of a compose service's build: section.
type BuildOptions struct {
	Image      string // the tag given to the result
	Context    string // a local directory
	Dockerfile string // relative to Context
	Args       map[string]*string
	Target     string
	Labels     map[string]string
	NoCache    bool
	Pull       bool
}

// ImageExists tells whether ref names a local image.
func (r *Runtime) ImageExists(ctx context.Context, ref string) (bool, error) {
	_, err := r.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// BuildImage builds an image with the engine's build API, sending the
// context directory less what its .dockerignore excludes, as 'docker build'
// does. Each line of the build's output goes to progress. It returns the
// image ID.
func (r *Runtime) BuildImage(ctx context.Context, opt BuildOptions, progress func(line string)) (string, error) {
	if strings.HasPrefix(opt.Dockerfile, "..") || filepath.IsAbs(opt.Dockerfile) {
		return "", fmt.Errorf("build %s: the Dockerfile %s is outside the context %s: the engine's build API reads it from the context", opt.Image, opt.Dockerfile, opt.Context)
	}
	excludes, err := dockerignore(opt.Context, opt.Dockerfile)
	if err != nil {
		return "", fmt.Errorf("build %s: %w", opt.Image, err)
	}
	tar, err := archive.TarWithOptions(opt.Context, &archive.TarOptions{ExcludePatterns: excludes})
	if err != nil {
		return "", fmt.Errorf("build %s: context %s: %w", opt.Image, opt.Context, err)
	}
	defer func() { _ = tar.Close() }()
	auths, err := registryauth.BuildConfigs()
	if err != nil {
		return "", fmt.Errorf("build %s: %w", opt.Image, err)
	}
	res, err := r.cli.ImageBuild(ctx, tar, client.ImageBuildOptions{
		Tags: []string{opt.Image}, Dockerfile: filepath.ToSlash(opt.Dockerfile), BuildArgs: opt.Args,
		Target: opt.Target, Labels: opt.Labels, NoCache: opt.NoCache, PullParent: opt.Pull, Remove: true,
		AuthConfigs: auths,
	})
	if err != nil {
		return "", fmt.Errorf("build %s: %s", opt.Image, daemonMessage(err))
	}
	defer func() { _ = res.Body.Close() }()
	id, err := readBuild(res.Body, progress)
	if err != nil {
		return "", fmt.Errorf("build %s: %w", opt.Image, err)
	}
	return id, nil
}

// readBuild follows the build's JSON messages: output lines, an error, and
// the image ID at the end.
func readBuild(body io.Reader, progress func(string)) (string, error) {
	dec := json.NewDecoder(body)
	var id string
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
			Aux    struct {
				ID string `json:"ID"`
			} `json:"aux"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", err
		}
		if m.Error != "" {
			return "", errors.New(strings.TrimSpace(m.Error))
		}
		if m.Aux.ID != "" {
			id = m.Aux.ID
		}
		if line := strings.TrimRight(m.Stream, "\n"); line != "" && progress != nil {
			for _, l := range strings.Split(line, "\n") {
				progress(l)
			}
		}
	}
	if id == "" {
		return "", errors.New("the engine did not say which image it built")
	}
	return id, nil
}

// dockerignore reads the context's .dockerignore, if any. The Dockerfile and
// .dockerignore are always sent, as the docker CLI does.
func dockerignore(dir, dockerfile string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf(".dockerignore: %w", err)
	}
	return append(patterns, "!"+filepath.ToSlash(dockerfile), "!.dockerignore"), nil
}
