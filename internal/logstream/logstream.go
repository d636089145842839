// Package logstream prints the output of a set's replicas, as docker
// compose logs does: one replica after the other, or when following all at
// once, interleaved line by line, each line whole and prefixed with its
// replica's name (coloured per ordinal on a terminal). It reads through a
// Source (the Docker runtime) and must not import the Docker SDK, the daemon
// or cobra.
package logstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// Source lists a set's containers and reads a container's output (follow:
// until it stops; tail: a number of lines from the end, or "all"). A
// container gone since the list answers an error cerrdefs.IsNotFound
// recognises.
type Source interface {
	Observe(ctx context.Context, set string, opts engine.ObserveOptions) (plan.Observed, error)
	Logs(ctx context.Context, set, id string, follow bool, tail string) (io.ReadCloser, error)
}

// SinceSource is a Source that also reads a container's output from a time
// on (Options.Since).
type SinceSource interface {
	LogsSince(ctx context.Context, set, id string, follow bool, tail, since string) (io.ReadCloser, error)
}

// Target is the output Print reads: every replica of a set, or one of them,
// or an init container of one.
type Target struct {
	Set     string
	Whole   bool   // every replica of Set; else the one at Ordinal
	Ordinal int    // the replica, when not Whole
	Name    string // the replica's name as given, for messages
	Init    string // an init container's name: its output instead of the replica's
	// More are further sets read whole with Set (logs -l): their replicas
	// come after Set's, set by set, and are prefixed alike.
	More []string
}

// Options say how Print reads and writes.
type Options struct {
	Follow   bool
	Tail     string // lines from the end of each output, or "all"
	NoPrefix bool   // no "name | " before each line
	Color    bool   // colour the prefixes
	// Since, if set, reads only the lines written from then on: an RFC 3339
	// time, a Unix time or a duration back from now (SinceSource).
	Since string
}

// Print writes to w the logs of the target's replicas: one after the other
// in ordinal order, or with Follow all at once, interleaved line by line.
// It returns when every stream ends, or with nil when parent is cancelled
// (Ctrl-C); a failed write to w stops every stream.
func Print(parent context.Context, rt Source, w io.Writer, t Target, opts Options) error {
	// ctx also ends when w fails, so that every stream stops.
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	obs, err := rt.Observe(ctx, t.Set, engine.ObserveOptions{})
	if err != nil {
		return err
	}
	var replicas []plan.Replica  // sorted by ordinal, as Observe returns them
	setOf := map[string]string{} // container ID → set, for the streams
	for _, r := range obs.Replicas {
		if (t.Whole || r.Ordinal == t.Ordinal) && t.Init == "" {
			replicas = append(replicas, r)
		}
	}
	for _, c := range obs.Inits {
		if c.Ordinal == t.Ordinal && c.Init == t.Init && t.Init != "" {
			replicas = append(replicas, plan.Replica{ID: c.ID, Name: c.Name, Ordinal: c.Ordinal})
		}
	}
	for _, set := range t.More {
		more, err := rt.Observe(ctx, set, engine.ObserveOptions{})
		if err != nil {
			return err
		}
		for _, r := range more.Replicas {
			setOf[r.ID] = set
			replicas = append(replicas, r)
		}
	}
	if len(replicas) == 0 && t.Init != "" {
		return fmt.Errorf("replica %s has no init container %s now: init containers are removed once the replica's container exists", t.Name, t.Init)
	}
	if len(replicas) == 0 {
		if t.Whole {
			return nil // a set with no containers has no logs
		}
		return fmt.Errorf("replica %s of set %s has no container", t.Name, t.Set)
	}

	width := 0
	for _, r := range replicas {
		width = max(width, len(r.Name))
	}
	out := &lineWriter{w: w, failed: cancel}
	stream := func(r plan.Replica) error {
		var rc io.ReadCloser
		var err error
		set := orSet(setOf[r.ID], t.Set)
		if opts.Since != "" {
			ss, ok := rt.(SinceSource)
			if !ok {
				return errors.New("this runtime cannot read logs from a time on (--since)")
			}
			rc, err = ss.LogsSince(ctx, set, r.ID, opts.Follow, opts.Tail, opts.Since)
		} else {
			rc, err = rt.Logs(ctx, set, r.ID, opts.Follow, opts.Tail)
		}
		if err != nil {
			if t.Whole && cerrdefs.IsNotFound(err) {
				return nil // removed since Observe (e.g. mid-rollout): nothing to print
			}
			return err
		}
		defer func() { _ = rc.Close() }()
		stop := context.AfterFunc(ctx, func() { _ = rc.Close() }) // unblock a pending read on Ctrl-C
		defer stop()
		p := ""
		if !opts.NoPrefix {
			p = prefix(r, width, opts.Color)
		}
		return out.copyLines(rc, p)
	}

	var errs []error
	if !opts.Follow {
		for _, r := range replicas {
			if ctx.Err() != nil {
				break
			}
			if err := stream(r); err != nil {
				errs = append(errs, err)
			}
		}
	} else {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, r := range replicas {
			wg.Go(func() {
				if err := stream(r); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if err := out.failure(); err != nil {
		return err
	}
	if parent.Err() != nil {
		return nil // interrupted (Ctrl-C): a clean stop
	}
	return errors.Join(errs...)
}

func orSet(set, def string) string {
	if set == "" {
		return def
	}
	return set
}

// palette is compose's: cyan, yellow, green, magenta, blue, then the bright ones.
var palette = []string{"36", "33", "32", "35", "34", "36;1", "33;1", "32;1", "35;1", "34;1"}

// logPrefix is "name<padding> | ", coloured by ordinal when asked.
func prefix(r plan.Replica, width int, color bool) string {
	p := fmt.Sprintf("%-*s |", width, r.Name)
	if color {
		n := len(palette)
		p = "\x1b[" + palette[((r.Ordinal%n)+n)%n] + "m" + p + "\x1b[0m"
	}
	return p + " "
}

// lineWriter writes whole lines, each in one Write under its lock, so lines of
// concurrent streams never interleave mid-line. After a failed write it keeps
// the error, calls failed and drops everything else.
type lineWriter struct {
	w      io.Writer
	failed func()

	mu  sync.Mutex
	buf []byte
	err error
}

func (lw *lineWriter) failure() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// copyLines copies r to the writer line by line, each with the prefix, keeping
// long lines whole; a last line without a newline gets one. It returns nil at
// the end of r, and the read error otherwise.
func (lw *lineWriter) copyLines(r io.Reader, prefix string) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if werr := lw.writeLine(prefix, line); werr != nil {
				return nil // reported once, by Print
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (lw *lineWriter) writeLine(prefix, line string) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	lw.buf = append(append(lw.buf[:0], prefix...), line...)
	if !strings.HasSuffix(line, "\n") {
		lw.buf = append(lw.buf, '\n')
	}
	if _, err := lw.w.Write(lw.buf); err != nil {
		lw.err = fmt.Errorf("write logs: %w", err)
		lw.failed()
	}
	return lw.err
}
