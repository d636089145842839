package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
)

// applyWithPull applies a set, showing the pulls of its images (the main
// container's and the init containers'). A problem with an image, or a file that
// does not validate with the values kept from commands, is invalid input (exit
// code 2).
func (a *app) applyWithPull(ctx context.Context, c *engine.Controller, s config.Set, cause string) (state.ApplyResult, error) {
	p := newPullPrinter(a.stdout, isTerminal(a.stdout), s.Name, time.Now)
	ids, err := c.Images(ctx, s, p.update)
	p.finish(err)
	if err != nil {
		err = fmt.Errorf("%w%s", err, runsNow(c.Store, s))
	}
	if ie := (*engine.ImageError)(nil); errors.As(err, &ie) {
		return state.ApplyResult{}, invalid(err)
	}
	if err != nil {
		return state.ApplyResult{}, err
	}
	res, err := c.ApplyImages(ctx, s, ids, cause)
	if fe := (config.FieldError{}); errors.As(err, &fe) {
		return res, invalid(err)
	}
	return res, err
}

// pullPrinter shows the progress of image pulls, one after the other, as docker compose does:
// on a terminal one line, redrawn in place, with the layers done and the bytes
// downloaded; elsewhere one line when the pull starts and one when it ends.
// Nothing is printed when no pull happens.
type pullPrinter struct {
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

func newPullPrinter(w io.Writer, live bool, prefix string, now func() time.Time) *pullPrinter {
	return &pullPrinter{w: w, live: live, prefix: prefix, now: now, layers: map[string]*layer{}}
}

func (p *pullPrinter) update(e engine.PullProgress) {
	switch {
	case e.State == engine.PullStarted:
		p.finish(nil) // the pull before this one, if any, succeeded
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

// finish ends the pull's output: the outcome, its size and how long it took.
func (p *pullPrinter) finish(err error) {
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
		if n, bytes := p.downloaded(); n > 0 {
			what = fmt.Sprintf("%s, %s downloaded", plural(n, "layer"), humanBytes(bytes))
		}
		line = fmt.Sprintf("%s: pulled %s (%s) in %s", p.prefix, p.image, what, took)
	}
	p.draw(line, true)
	p.image = ""
}

// draw writes line: on a terminal over the previous one.
func (p *pullPrinter) draw(line string, final bool) {
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

func (p *pullPrinter) progressLine() string {
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
func (p *pullPrinter) downloaded() (layers int, bytes int64) {
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
