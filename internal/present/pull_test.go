package present

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/engine"
)

// clock is a fake time source advanced by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func step(layer, state string, cur, total int64) engine.PullProgress {
	return engine.PullProgress{Image: "reg:5000/app:1", Layer: layer, State: state, Current: cur, Total: total}
}

// feed plays a pull of two new layers and one that existed, 100ms per step.
func feed(p *PullPrinter, c *clock) {
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
		p.Update(s)
		c.advance(100 * time.Millisecond)
	}
}

// Not on a terminal: one line when the pull starts, one when it ends.
func TestPullPrinterPlain(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := NewPullPrinter(&out, false, "web", c.now)
	feed(p, c)
	p.Finish(nil)
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
	p := NewPullPrinter(&out, true, "web", c.now)
	feed(p, c)
	p.Finish(nil)
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
	p := NewPullPrinter(&out, true, "web", c.now)
	p.Update(engine.PullProgress{Image: "app:1", State: engine.PullStarted})
	for i := range 100 {
		p.Update(step("a", engine.LayerDownloading, int64(i+1)*1000, 100_000))
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
		p := NewPullPrinter(&out, tt.live, "web", c.now)
		for _, s := range tt.steps {
			p.Update(s)
		}
		p.Finish(tt.err)
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

// Consecutive pulls (the main image, then init containers') each get their lines.
func TestPullPrinterSequential(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	p := NewPullPrinter(&out, false, "web", c.now)
	feed(p, c)
	p.Update(engine.PullProgress{Image: "busybox:1", State: engine.PullStarted})
	p.Update(engine.PullProgress{Image: "busybox:1", State: engine.PullUpToDate})
	c.advance(time.Second)
	p.Finish(nil)
	want := "web: pulling reg:5000/app:1\n" +
		"web: pulled reg:5000/app:1 (2 layers, 4.0MB downloaded) in 1.2s\n" +
		"web: pulling busybox:1\n" +
		"web: pulled busybox:1 (up to date) in 1s\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
