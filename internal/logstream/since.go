package logstream

import (
	"errors"
	"fmt"
	"time"
)

// CheckSince accepts what logs --since takes: a duration back from now or an
// RFC 3339 time; not with previous (the kept lines of a previous container,
// which have no times).
func CheckSince(since string, previous bool) error {
	if since == "" {
		return nil
	}
	if previous {
		return errors.New("--since does not apply to --previous (the kept lines of the previous container)")
	}
	if d, err := time.ParseDuration(since); err == nil && d >= 0 {
		return nil
	}
	if _, err := time.Parse(time.RFC3339, since); err == nil {
		return nil
	}
	return fmt.Errorf("--since %q: want a duration back from now (10m, 1h30m) or an RFC 3339 time (2026-01-02T15:04:05Z)", since)
}
