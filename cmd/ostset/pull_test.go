package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
)

// clock is a fake time source advanced by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func step(layer, state string, cur, total int64) engine.PullProgress {
	return engine.PullProgress{Image: "reg:5000/app:1", Layer: layer, State: state, Current: cur, Total: total}
}

// feed plays a pull of two new layers and one that existed, 100ms per step.
func feed(p *pullPrinter, c *clock) {
	for _, s := range []engine.PullProgress{
		{Image: "reg:5000/app:1", State: engine.PullStarted},
		{Image: "reg:5000/app:1", Layer: "base", State: engine.LayerComplete, Existed: true},
		step("a", engine.LayerWaiting, 0, 0),
		step("b", engine.LayerWaiting, 0, 0),
		step("a", engine.LayerDownloading, 1_000_000, 4_000_000),
		step("a", engine.LayerDownloading, 2_000_000, 4_000_000),
		step("b", engine.LayerDownloading, 500, 2_000),
		step("a", engine.LayerDownloaded, 0, 0),
		step("a", engine.LayerExtracting, 4_000_000, 4_000_000),
		step("a", engine.LayerComplete, 0, 0),
		step("b", engine.LayerExtracting, 2_000, 2_000),
		step("b", engine.LayerComplete, 0, 0),
	} {
		p.update(s)
		c.advance(100 * time.Millisecond)
	}
}

// Not on a terminal: one line when the pull starts, one when it ends.
func TestPullPrinterPlain(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := newPullPrinter(&out, false, "web", c.now)
	feed(p, c)
	p.finish(nil)
	want := "web: pulling reg:5000/app:1\n" +
		"web: pulled reg:5000/app:1 (2 layers, 4.0MB downloaded) in 1.2s\n"
	if out.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

// On a terminal: one line redrawn in place with layers done and bytes, and
// the final line ends it.
func TestPullPrinterLive(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := newPullPrinter(&out, true, "web", c.now)
	feed(p, c)
	p.finish(nil)
	frames := strings.Split(out.String(), "\r\x1b[K")
	if frames[0] != "" {
		t.Errorf("output before the first frame: %q", frames[0])
	}
	frames = frames[1:]
	want := []string{
		"web: pulling reg:5000/app:1",
		"web: pulling reg:5000/app:1: 1/1 layers",
		"web: pulling reg:5000/app:1: 1/2 layers",
		"web: pulling reg:5000/app:1: 1/3 layers",
		"web: pulling reg:5000/app:1: 1/3 layers, 1.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 1/3 layers, 2.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 1/3 layers, 2.0MB/4.0MB", // b's first bytes
		"web: pulling reg:5000/app:1: 1/3 layers, 4.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 1/3 layers, 4.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 2/3 layers, 4.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 2/3 layers, 4.0MB/4.0MB",
		"web: pulling reg:5000/app:1: 3/3 layers, 4.0MB/4.0MB",
		"web: pulled reg:5000/app:1 (2 layers, 4.0MB downloaded) in 1.2s\n",
	}
	if strings.Join(frames, "|") != strings.Join(want, "|") {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(frames, "\n"), strings.Join(want, "\n"))
	}
}

// Download steps closer together than redrawEvery are not all drawn.
func TestPullPrinterThrottles(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := newPullPrinter(&out, true, "web", c.now)
	p.update(engine.PullProgress{Image: "app:1", State: engine.PullStarted})
	for i := range 100 {
		p.update(step("a", engine.LayerDownloading, int64(i+1)*1000, 100_000))
		c.advance(10 * time.Millisecond)
	}
	// 1 s of steps every 10 ms: the start, then one frame per 100 ms.
	if n := strings.Count(out.String(), "\r"); n < 10 || n > 12 {
		t.Errorf("%d frames for 1s of download steps, want about 11", n)
	}
}

func TestPullPrinterOutcomes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		live  bool
		steps []engine.PullProgress
		err   error
		want  string
	}{{
		name: "no pull: nothing",
		want: "",
	}, {
		name:  "failed",
		steps: []engine.PullProgress{{Image: "app:1", State: engine.PullStarted}},
		err:   errors.New("manifest unknown"),
		want:  "web: pulling app:1\nweb: pull of app:1 failed after 0s\n",
	}, {
		name:  "failed, live",
		live:  true,
		steps: []engine.PullProgress{{Image: "app:1", State: engine.PullStarted}},
		err:   errors.New("manifest unknown"),
		want:  "\r\x1b[Kweb: pulling app:1\r\x1b[Kweb: pull of app:1 failed after 0s\n",
	}, {
		name: "every layer present",
		steps: []engine.PullProgress{{Image: "app:1", State: engine.PullStarted},
			{Image: "app:1", Layer: "a", State: engine.LayerComplete, Existed: true}},
		want: "web: pulling app:1\nweb: pulled app:1 (nothing to download: every layer was present) in 0s\n",
	}, {
		name:  "up to date",
		steps: []engine.PullProgress{{Image: "app:1", State: engine.PullStarted}, {Image: "app:1", State: engine.PullUpToDate}},
		want:  "web: pulling app:1\nweb: pulled app:1 (up to date) in 0s\n",
	}} {
		var out bytes.Buffer
		c := &clock{t: time.Unix(1000, 0)}
		p := newPullPrinter(&out, tt.live, "web", c.now)
		for _, s := range tt.steps {
			p.update(s)
		}
		p.finish(tt.err)
		if out.String() != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, out.String(), tt.want)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 999: "999B", 1000: "1.0kB", 1_234_567: "1.2MB", 45_600_000_000: "45.6GB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// applyWithPull reports an image that cannot be had as invalid input at the
// set's file and line, and a pull's progress on stdout.
func TestApplyWithPullExitCodes(t *testing.T) {
	rt := enginetest.New()
	rt.Local = map[string]string{"app:1": "sha256:old"}
	rt.Registry = map[string]string{"app:1": "sha256:new", "app:2": "sha256:two"}
	var out bytes.Buffer
	a := &app{stdout: &out}
	c := &engine.Controller{Runtime: rt, Store: engine.Store{Dir: t.TempDir()}}
	set := func(image, policy string) config.Set {
		return config.Set{Name: "web", Source: "set.yaml:3", Template: config.Template{Image: image, ImagePullPolicy: policy}}
	}
	ctx := context.Background()
	imageID := func(res engine.ApplyResult) string {
		r, _ := res.State.Revision(res.State.UpdateRevision)
		return r.Spec.ImageID
	}

	if res, err := a.applyWithPull(ctx, c, set("app:1", ""), "up"); imageID(res) != "sha256:old" || err != nil || out.Len() != 0 {
		t.Errorf("present: %q, %v, output %q; want the local ID and no output", imageID(res), err, out.String())
	}
	if res, err := a.applyWithPull(ctx, c, set("app:2", ""), "up"); imageID(res) != "sha256:two" || err != nil || !strings.Contains(out.String(), "web: pulled app:2 (1 layer, 1B downloaded)") {
		t.Errorf("missing: %q, %v, output %q; want a pull", imageID(res), err, out.String())
	}
	for _, tt := range []struct{ image, policy, want string }{
		{"app:3", config.PullNever, "set.yaml:3: template.image: app:3: not present locally, and imagePullPolicy is Never"},
		{"app:3", config.PullIfNotPresent, "set.yaml:3: template.image: app:3: manifest unknown"},
	} {
		_, err := a.applyWithPull(ctx, c, set(tt.image, tt.policy), "up")
		if exitCode(err) != exitInvalid || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s %s: exit %d, %v; want exit 2 and %q", tt.image, tt.policy, exitCode(err), err, tt.want)
		}
	}
}

// unreachableRegistry has the images it has locally; a pull finds no registry.
type unreachableRegistry struct{ *enginetest.Runtime }

func (r unreachableRegistry) EnsureImage(ctx context.Context, ref, policy string, progress func(engine.PullProgress)) (string, error) {
	if ref == "app:1" {
		return r.Runtime.EnsureImage(ctx, ref, policy, progress)
	}
	return "", &engine.RegistryError{Image: ref, Err: errors.New(`Get "https://registry.example/v2/": dial tcp: lookup registry.example: no such host`)}
}

// A registry that cannot be reached is a failure of the moment (exit 1), not
// a mistake in the file, yet it is told at the image: line, with the image
// the set runs meanwhile.
func TestApplyWithPullRegistryUnreachable(t *testing.T) {
	rt := unreachableRegistry{enginetest.New()}
	a := &app{stdout: &bytes.Buffer{}}
	c := &engine.Controller{Runtime: rt, Store: engine.Store{Dir: t.TempDir()}}
	set := func(image string) config.Set {
		s := config.Set{Name: "web", Source: "set.yaml:1", Lines: map[string]int{"template.image": 4}, Template: config.Template{Image: image}}
		s.ApplyDefaults()
		return s
	}
	ctx := context.Background()
	if _, err := a.applyWithPull(ctx, c, set("app:1"), "up"); err != nil {
		t.Fatal(err)
	}
	_, err := a.applyWithPull(ctx, c, set("app:2"), "up")
	want := `set.yaml:4: template.image: pull app:2: the registry cannot be reached: Get "https://registry.example/v2/": dial tcp: lookup registry.example: no such host (nothing changed: web runs app:1, revision `
	if exitCode(err) != exitFailure || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("exit %d, %v\nwant exit 1 and %q", exitCode(err), err, want)
	}
}
