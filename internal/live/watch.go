package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// Watch is get -w: the table of the sets (or of one set's replicas), then a
// row for each one that changed, until the context ends.
type Watch struct {
	Controller *engine.Controller
	Events     engine.EventSource
	// Output is "", "wide" or "json" (one object per line).
	Output string
	Out    io.Writer
	// Err hears of the event stream's failures and reconnections.
	Err io.Writer
	// Printed, if set, is called once the first table is out.
	Printed func()
}

// watchGet is get -w: the table (or one JSON object per set or replica), then
// a row for each one that changed, until ctx ends (Ctrl-C), which is exit 0.
// A row is printed again only when something in it other than its age changed.
func (wt Watch) Run(ctx context.Context, set string) error {
	changes, err := daemon.WatchChanges(ctx, wt.Controller.Store, wt.Events, func(err error) {
		fmt.Fprintf(wt.Err, "ostset: %v\n", err)
	})
	if err != nil {
		return err
	}
	c := wt.Controller
	c.Runtime = changes.Runtime(c.Runtime) // a replica that died shows exited at once
	output := wt.Output
	w := &watchWriter{out: wt.Out, json: output == "json", seen: map[string]string{}}
	if set != "" {
		w.header = ReplicaHeader(output)
		if err := watchReplicas(ctx, c, w, set, output); err != nil {
			return err
		}
	} else {
		w.header = SetHeader(output)
		if err := watchSets(ctx, c, w, nil, output); err != nil {
			return err
		}
	}
	w.flush()
	if wt.Printed != nil {
		wt.Printed()
	}
	for {
		var name string
		select {
		case <-ctx.Done():
			return nil
		case name = <-changes.C:
		}
		names := map[string]bool{name: true}
		for more := true; more; { // a burst of events is one refresh
			select {
			case n := <-changes.C:
				names[n] = true
			default:
				more = false
			}
		}
		if set != "" {
			if names[set] || names[""] {
				err = watchReplicas(ctx, c, w, set, output)
			}
		} else {
			var only []string
			if !names[""] {
				only = slices.Sorted(func(yield func(string) bool) {
					for n := range names {
						if !yield(n) {
							return
						}
					}
				})
			}
			err = watchSets(ctx, c, w, only, output)
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		w.flush()
	}
}

// watchSets prints the rows of the named sets (nil: every set) that changed,
// and a row for each that was deleted.
func watchSets(ctx context.Context, c *engine.Controller, w *watchWriter, only []string, output string) error {
	names := only
	if names == nil {
		listed, err := c.Store.List()
		if err != nil {
			return err
		}
		names = listed
		for name := range w.seen { // sets deleted while nobody listed them
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		slices.Sort(names)
	}
	now := time.Now()
	for _, name := range names {
		status, st, err := c.Status(ctx, name)
		if errors.Is(err, state.ErrUnknownSet) {
			if _, ok := w.seen[name]; ok {
				cells := make([]string, len(SetHeader(output)))
				for i := range cells {
					cells[i] = "-"
				}
				cells[0], cells[1] = name, "(deleted)"
				w.row(name, SetRow{Status: plan.Status{Name: name}, Deleted: true}, cells, -1)
				w.forget(name)
			}
			continue
		}
		if err != nil {
			return err
		}
		row := NewSetRow(status, st)
		w.row(name, row, SetCells(row, output, now), slices.Index(SetHeader(output), "AGE"))
	}
	return nil
}

// watchReplicas prints the replica rows of set that changed, and a row for
// each replica that went away (scale-down, the set deleted).
func watchReplicas(ctx context.Context, c *engine.Controller, w *watchWriter, set, output string) error {
	status, st, err := c.Status(ctx, set)
	if err != nil && !errors.Is(err, state.ErrUnknownSet) {
		return err
	}
	if err != nil && len(w.seen) == 0 && !w.started {
		return err // an unknown set from the start is a mistake, not a change
	}
	now := time.Now()
	header := ReplicaHeader(output)
	ageAt := slices.Index(header, "AGE")
	objects := ReplicaObjects(status)
	current := map[string]bool{}
	for i, r := range ReplicaRows(status, st, now) {
		current[r.Name] = true
		w.row(r.Name, objects[i], ReplicaCells(r, output, now), ageAt)
	}
	for _, name := range w.names() {
		if current[name] {
			continue
		}
		cells := make([]string, len(header))
		for i := range cells {
			cells[i] = "-"
		}
		cells[0], cells[slices.Index(header, "STATE")] = name, "deleted"
		w.row(name, plan.ContainerStatus{Name: name, State: "deleted"}, cells, -1)
		w.forget(name)
	}
	return nil
}

// watchWriter prints a row (or a JSON line) for an object only when it
// differs from the last one printed for it. Table rows keep the columns of
// the first table, widened when a later cell is longer.
type watchWriter struct {
	out     io.Writer
	json    bool
	header  []string
	widths  []int
	seen    map[string]string // by object name: what was printed last, age left out
	order   []string          // names in seen, in first-seen order
	pending [][]string        // rows of the first table, until flush aligns them
	started bool
}

// row prints cells (or obj as JSON) for name unless nothing but the age
// column (ageAt; -1: none) changed since the last row of name.
func (w *watchWriter) row(name string, obj any, cells []string, ageAt int) {
	var key string
	if w.json {
		data, err := json.Marshal(obj)
		if err != nil {
			return
		}
		key = string(data)
	} else {
		k := slices.Clone(cells)
		if ageAt >= 0 && ageAt < len(k) {
			k[ageAt] = ""
		}
		key = strings.Join(k, "\x00")
	}
	if last, ok := w.seen[name]; ok && last == key {
		return
	}
	if _, ok := w.seen[name]; !ok {
		w.order = append(w.order, name)
	}
	w.seen[name] = key
	switch {
	case w.json:
		fmt.Fprintln(w.out, key)
	case !w.started:
		w.pending = append(w.pending, cells)
	default:
		w.print(cells)
	}
}

func (w *watchWriter) forget(name string) {
	delete(w.seen, name)
	w.order = slices.DeleteFunc(w.order, func(n string) bool { return n == name })
}

func (w *watchWriter) names() []string { return slices.Clone(w.order) }

// flush prints the first table, aligned on its widest cells; rows after it
// print at once.
func (w *watchWriter) flush() {
	if w.started {
		return
	}
	w.started = true
	if w.json {
		return
	}
	rows := append([][]string{w.header}, w.pending...)
	for _, r := range rows {
		w.widen(r)
	}
	for _, r := range rows {
		w.print(r)
	}
	w.pending = nil
}

func (w *watchWriter) widen(cells []string) {
	for i, c := range cells {
		if i >= len(w.widths) {
			w.widths = append(w.widths, 0)
		}
		w.widths[i] = max(w.widths[i], len(c))
	}
}

func (w *watchWriter) print(cells []string) {
	w.widen(cells)
	var b strings.Builder
	for i, c := range cells {
		if i == len(cells)-1 {
			b.WriteString(c)
			break
		}
		b.WriteString(c)
		b.WriteString(strings.Repeat(" ", w.widths[i]-len(c)+3))
	}
	fmt.Fprintln(w.out, b.String())
}
