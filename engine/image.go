package engine

import (
	"errors"
	"fmt"

	"github.com/ostset/ostset/config"
)

// Steps of an image pull, as PullProgress.State reports them.
const (
	// PullStarted: the pull of the image begins (Layer is empty).
	PullStarted = "started"
	// PullUpToDate: the registry has nothing newer than the local image (Layer is empty).
	PullUpToDate = "up to date"
	// LayerWaiting: the layer is known and queued for download.
	LayerWaiting = "waiting"
	// LayerDownloading: Current of Total bytes of the layer are downloaded.
	LayerDownloading = "downloading"
	// LayerDownloaded: the layer is downloaded and being verified.
	LayerDownloaded = "downloaded"
	// LayerExtracting: the layer is downloaded; Current of Total bytes are unpacked.
	LayerExtracting = "extracting"
	// LayerComplete: the layer is in place, pulled now or already present.
	LayerComplete = "complete"
)

// PullProgress is one step of an image pull, for progress display.
type PullProgress struct {
	Image string // the reference being pulled, as the set names it
	Layer string // layer ID; empty for a step of the whole image
	State string // one of the Pull* and Layer* states above
	// Current and Total are byte counts of the step, when known (0 otherwise):
	// both are the layer's compressed size, as the registry sends it.
	Current, Total int64
	// Existed: the layer was complete before the pull began (not downloaded).
	Existed bool
}

// ImageError is an image the runtime could not provide: missing under the
// Never policy, or a pull that failed. It is a problem with the set's image
// (exit code 2), not with the runtime. Err holds the engine's or registry's
// own message.
type ImageError struct {
	Image string
	Err   error
}

func (e *ImageError) Error() string { return e.Image + ": " + e.Err.Error() }
func (e *ImageError) Unwrap() error { return e.Err }

// RegistryError is a pull that failed because the image's registry could not
// be reached (a name that does not resolve, a refused or timed-out
// connection): a failure of the moment, not a problem with the set's image
// (exit code 1), though it is told at the image's line.
type RegistryError struct {
	Image string
	Err   error // the engine's words
}

func (e *RegistryError) Error() string {
	return "pull " + e.Image + ": the registry cannot be reached: " + e.Err.Error()
}
func (e *RegistryError) Unwrap() error { return e.Err }

// imageProblem says whether err is about the image a field names: an
// *ImageError or a *RegistryError, told at the field's line.
func imageProblem(err error) bool {
	var ie *ImageError
	var re *RegistryError
	return errors.As(err, &ie) || errors.As(err, &re)
}

// ErrNeverPull is the reason for a missing image under the Never policy.
var ErrNeverPull = errors.New("not present locally, and imagePullPolicy is Never: build, load or import it first")

// PullNeeded says whether an image must be pulled under policy ("" is
// IfNotPresent), given whether it is present locally. Under Never a missing
// image is ErrNeverPull.
func PullNeeded(policy string, present bool) (bool, error) {
	switch policy {
	case config.PullAlways:
		return true, nil
	case config.PullIfNotPresent, "":
		return !present, nil
	case config.PullNever:
		if !present {
			return false, ErrNeverPull
		}
		return false, nil
	}
	return false, fmt.Errorf("unknown image pull policy %q", policy)
}
