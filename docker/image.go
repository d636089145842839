package docker

import (
	"context"
	"errors"
	"fmt"
	"github.com/ostset/ostset/docker/registryauth"
	"iter"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
)

// EnsureImage implements engine.Runtime: it inspects ref, pulls it when the
// policy says so (with the credentials `docker pull` would use), and returns
// the local image ID.
func (r *Runtime) EnsureImage(ctx context.Context, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	return ensureImage(ctx, engineImages{r.cli}, ref, policy, progress)
}

// ImageConfig implements engine.Runtime: the image's VOLUME mount points
// and EXPOSEd ports.
func (r *Runtime) ImageConfig(ctx context.Context, imageID string) (engine.ImageConfig, error) {
	res, err := r.cli.ImageInspect(ctx, imageID)
	if err != nil {
		return engine.ImageConfig{}, fmt.Errorf("inspect image %s: %w", imageID, err)
	}
	var ic engine.ImageConfig
	if res.Config != nil {
		for p := range res.Config.Volumes {
			ic.Volumes = append(ic.Volumes, p)
		}
		for p := range res.Config.ExposedPorts {
			ic.ExposedPorts = append(ic.ExposedPorts, p)
		}
	}
	slices.Sort(ic.Volumes)
	slices.Sort(ic.ExposedPorts)
	return ic, nil
}

// images is the part of the engine EnsureImage needs, so that its logic can
// be tested without one.
type images interface {
	// localID returns the image ID of ref, "" if it is not present.
	localID(ctx context.Context, ref string) (string, error)
	// pull starts pulling ref and returns the engine's progress messages.
	pull(ctx context.Context, ref string, creds registryauth.Creds) (iter.Seq2[jsonstream.Message, error], error)
	// credentials finds what a pull of ref authenticates with.
	credentials(ref string) (registryauth.Creds, error)
}

func ensureImage(ctx context.Context, im images, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	if progress == nil {
		progress = func(engine.PullProgress) {}
	}
	id, err := im.localID(ctx, ref)
	if err != nil {
		return "", err
	}
	pull, err := engine.PullNeeded(policy, id != "")
	if errors.Is(err, engine.ErrNeverPull) {
		return "", withCloseTags(ctx, im, ref, &engine.ImageError{Image: ref, Err: err})
	}
	if err != nil || !pull {
		return id, err
	}
	if err := pullImage(ctx, im, ref, progress); err != nil {
		if id == "" {
			err = withCloseTags(ctx, im, ref, err)
		}
		return "", err
	}
	if id, err = im.localID(ctx, ref); err == nil && id == "" {
		err = fmt.Errorf("image %s is not present after pulling it", ref)
	}
	return id, err
}

func pullImage(ctx context.Context, im images, ref string, progress func(engine.PullProgress)) error {
	creds, err := im.credentials(ref)
	if err != nil {
		return &engine.ImageError{Image: ref, Err: err}
	}
	progress(engine.PullProgress{Image: ref, State: engine.PullStarted})
	msgs, err := im.pull(ctx, ref, creds)
	if err != nil {
		return pullError(ctx, ref, creds, err)
	}
	for m, err := range msgs {
		if err != nil {
			return pullError(ctx, ref, creds, err)
		}
		if m.Error != nil {
			return pullError(ctx, ref, creds, errors.New(m.Error.Message))
		}
		if p, ok := pullStep(ref, m); ok {
			progress(p)
		}
	}
	return nil
}

// pullError says why a pull failed. What the engine or the registry refused
// is an *engine.ImageError in their own words; a lost connection to the
// engine or a cancelled pull is not.
func pullError(ctx context.Context, ref string, creds registryauth.Creds, err error) error {
	if ctx.Err() != nil || client.IsErrConnectionFailed(err) {
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	msg := daemonMessage(err)
	if unreachable(msg) {
		return &engine.RegistryError{Image: ref, Err: errors.New(msg)}
	}
	if creds.Auth == "" && authFailure(msg) {
		msg += fmt.Sprintf(" (no credentials for %s in %s)", creds.Host, creds.Config)
	}
	return &engine.ImageError{Image: ref, Err: errors.New(msg)}
}

// daemonMessage is the engine's own message in an error of the client.
func daemonMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "Error response from daemon: ")
}

// authFailure recognises a registry's refusal to an anonymous client (the
// engine reports every pull failure with status 500, so only the words tell).
func authFailure(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"unauthorized", "no basic auth credentials", "authentication required", "denied"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pullStep turns one message of the engine's pull stream into a progress step
// (the engine's wording is that of `docker pull`).
func pullStep(ref string, m jsonstream.Message) (engine.PullProgress, bool) {
	p := engine.PullProgress{Image: ref, Layer: m.ID}
	if d := m.Progress; d != nil {
		p.Current, p.Total = d.Current, d.Total
	}
	switch {
	case m.Status == "Pulling fs layer" || m.Status == "Waiting":
		p.State = engine.LayerWaiting
	case m.Status == "Downloading":
		p.State = engine.LayerDownloading
	case m.Status == "Verifying Checksum" || m.Status == "Download complete":
		p.State = engine.LayerDownloaded
	case m.Status == "Extracting":
		p.State = engine.LayerExtracting
	case m.Status == "Pull complete":
		p.State = engine.LayerComplete
	case m.Status == "Already exists":
		p.State, p.Existed = engine.LayerComplete, true
	case strings.HasPrefix(m.Status, "Status: Image is up to date"):
		return engine.PullProgress{Image: ref, State: engine.PullUpToDate}, true
	default: // "Pulling from …", "Digest: …", "Status: Downloaded newer image …"
		return p, false
	}
	if p.Layer == "" {
		return p, false
	}
	return p, true
}

// engineImages is images on the real engine.
type engineImages struct{ cli *client.Client }

func (e engineImages) localID(ctx context.Context, ref string) (string, error) {
	res, err := e.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", nil
	}
	if cerrdefs.IsInvalidArgument(err) { // not a reference: "invalid reference format: …"
		return "", &engine.ImageError{Image: ref, Err: errors.New(daemonMessage(err))}
	}
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return res.ID, nil
}

func (e engineImages) pull(ctx context.Context, ref string, creds registryauth.Creds) (iter.Seq2[jsonstream.Message, error], error) {
	res, err := e.cli.ImagePull(ctx, ref, client.ImagePullOptions{RegistryAuth: creds.Auth})
	if err != nil {
		return nil, err
	}
	return res.JSONMessages(ctx), nil
}

func (engineImages) credentials(ref string) (registryauth.Creds, error) { return registryauth.For(ref) }
