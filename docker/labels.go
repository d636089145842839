package docker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ostset/ostset/engine/plan"
)

// belongs reports whether labels mark an object of set.
func belongs(labels map[string]string, set string) bool {
	v, ok := labels[plan.LabelSet]
	return ok && set != "" && v == set
}

// setOf is the set whose container carries labels: its io.ostset.set label,
// but "" for a compose job's container (io.ostset.job), which is no set's.
func setOf(labels map[string]string) string {
	if _, job := labels[plan.LabelJob]; job {
		return ""
	}
	return labels[plan.LabelSet]
}

// refuse is the error for an object that does not carry the set's label.
func refuse(op, kind, name, set string, labels map[string]string) error {
	owner, ok := labels[plan.LabelSet]
	has := "no " + plan.LabelSet + " label"
	if ok {
		has = fmt.Sprintf("%s=%s", plan.LabelSet, owner)
	}
	return fmt.Errorf("refusing to %s %s %s: it does not belong to set %s (%s)", op, kind, name, set, has)
}

// ordinalLabel parses the io.ostset.ordinal label; ok is false if it is missing or invalid.
func ordinalLabel(labels map[string]string) (int, bool) {
	n, err := strconv.Atoi(labels[plan.LabelOrdinal])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// primaryName is the container's own name without the leading slash. Summary.Names
// also holds legacy link names ("/other/alias"), which contain a second slash.
func primaryName(names []string) string {
	for _, n := range names {
		n = strings.TrimPrefix(n, "/")
		if !strings.Contains(n, "/") {
			return n
		}
	}
	return ""
}
