package present

import (
	"fmt"
	"io"
	"time"

	"github.com/ostset/ostset/engine"
)

// PullPrinter shows the progress of image pulls, one after the other, as docker compose does:
// on a terminal one line, redrawn in place, with the layers done and the bytes
// downloaded; elsewhere one line when the pull starts and one when it ends.
// Nothing is printed when no pull happens.
type PullPrinter struct {
	w      io.Writer
	live   bool
	prefix string
	now    func() time.Time

	image    string
	started  time.Time
	upToDate bool
	layers   map[string]*layer
	order    []string // layer IDs as first seen
	drawn    time.Time
}

type layer struct {
	state          string
	current, total int64
	existed        bool
}

// redrawEvery limits how often the live line is redrawn: the engine reports
// every few kilobytes.
const redrawEvery = 100 * time.Millisecond

// NewPullPrinter writes to w, each line after prefix (the set's name); live
// redraws one line in place, as on a terminal. now is the clock.
func NewPullPrinter(w io.Writer, live bool, prefix string, now func() time.Time) *PullPrinter {
	return &PullPrinter{w: w, live: live, prefix: prefix, now: now, layers: map[string]*layer{}}
}

// Update takes the next step of a pull (engine.Controller.Images reports them).
func (p *PullPrinter) Update(e engine.PullProgress) {
	switch {
	case e.State == engine.PullStarted:
		p.Finish(nil) // the pull before this one, if any, succeeded
		p.image, p.started = e.Image, p.now()
		p.upToDate, p.layers, p.order = false, map[string]*layer{}, nil
		if !p.live {
			fmt.Fprintf(p.w, "%s: pulling %s\n", p.prefix, p.image)
			return
		}
	case e.State == engine.PullUpToDate:
		p.upToDate = true
	case e.Layer != "":
		l, ok := p.layers[e.Layer]
		if !ok {
			l = &layer{}
			p.layers[e.Layer] = l
			p.order = append(p.order, e.Layer)
		}
		l.state = e.State
		l.existed = l.existed || e.Existed
		l.total = max(l.total, e.Total)
		if e.State == engine.LayerDownloading {
			l.current = e.Current
		}
	}
	if p.live && (e.State != engine.LayerDownloading || p.now().Sub(p.drawn) >= redrawEvery) {
		p.draw(p.progressLine(), false)
	}
}

// Finish ends the pull's output: the outcome, its size and how long it took.
func (p *PullPrinter) Finish(err error) {
	if p.image == "" {
		return
	}
	took := p.now().Sub(p.started).Round(100 * time.Millisecond)
	var line string
	switch {
	case err != nil:
		line = fmt.Sprintf("%s: pull of %s failed after %s", p.prefix, p.image, took)
	case p.upToDate:
		line = fmt.Sprintf("%s: pulled %s (up to date) in %s", p.prefix, p.image, took)
	default:
		what := "nothing to download: every layer was present"
		if n, bytes := p.downloaded(); n == 1 {
			what = fmt.Sprintf("1 layer, %s downloaded", humanBytes(bytes))
		} else if n > 1 {
			what = fmt.Sprintf("%d layers, %s downloaded", n, humanBytes(bytes))
		}
		line = fmt.Sprintf("%s: pulled %s (%s) in %s", p.prefix, p.image, what, took)
	}
	p.draw(line, true)
	p.image = ""
}

// draw writes line: on a terminal over the previous one.
func (p *PullPrinter) draw(line string, final bool) {
	p.drawn = p.now()
	switch {
	case !p.live:
		fmt.Fprintln(p.w, line)
	case final:
		fmt.Fprintf(p.w, "\r\x1b[K%s\n", line)
	default:
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	}
}

func (p *PullPrinter) progressLine() string {
	done := 0
	var current, total int64
	for _, id := range p.order {
		l := p.layers[id]
		if l.state == engine.LayerComplete {
			done++
		}
		if l.existed {
			continue
		}
		total += l.total
		if l.state == engine.LayerDownloading {
			current += l.current
		} else if l.state != engine.LayerWaiting {
			current += l.total
		}
	}
	line := fmt.Sprintf("%s: pulling %s", p.prefix, p.image)
	if len(p.order) == 0 {
		return line
	}
	line += fmt.Sprintf(": %d/%d layers", done, len(p.order))
	if total > 0 {
		line += fmt.Sprintf(", %s/%s", humanBytes(current), humanBytes(total))
	}
	return line
}

// downloaded counts the layers the pull fetched and their size (layers that
// were already present are not counted).
func (p *PullPrinter) downloaded() (layers int, bytes int64) {
	for _, l := range p.layers {
		if !l.existed {
			layers++
			bytes += l.total
		}
	}
	return layers, bytes
}

// humanBytes writes a size in decimal units, as docker does: 1.2MB.
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	f, units := float64(n)/unit, []string{"kB", "MB", "GB", "TB"}
	i := 0
	for f >= unit && i < len(units)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f%s", f, units[i])
}
