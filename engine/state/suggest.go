package state

import (
	"fmt"

	"github.com/ostset/ostset/internal/suggest"
)

// didYouMean suggests the known set that name most likely misspells, as
// "; did you mean "web"?", or says which sets there are when few are known.
func (s Store) didYouMean(name string) string {
	names, err := s.List()
	if err != nil || len(names) == 0 {
		return ""
	}
	if best := suggest.Closest(name, names); best != "" {
		return fmt.Sprintf(": did you mean %q?", best)
	}
	return ""
}
