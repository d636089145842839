package preview

import (
	"context"
	"fmt"
	"io"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/internal/present"
)

// Sets previews every set in order and writes the previews to w, as text or,
// with output json or yaml, as one list. jobs are a compose project's
// one-shot services: up runs them, and they are named, not previewed. It
// reports whether anything would change.
func (e Engine) Sets(ctx context.Context, sets []config.Set, jobs []string, w io.Writer, output string) (bool, error) {
	changed := false
	var all []Set
	for _, s := range sets {
		p, err := e.Preview(ctx, s)
		if err != nil {
			return changed, fmt.Errorf("%s: %w", s.Name, err)
		}
		changed = changed || p.Changed()
		if output == "" {
			Render(w, p)
		}
		all = append(all, p)
	}
	if output != "" {
		return changed, present.PrintStructured(w, output, all)
	}
	for _, j := range jobs {
		fmt.Fprintf(w, "%s: a one-shot job, run by up when the sets that depend on it are reached (not previewed)\n", j)
	}
	return changed, nil
}
