package logstream

import "testing"

func TestCheckSince(t *testing.T) {
	for since, ok := range map[string]bool{"": true, "10m": true, "1h30m": true, "2026-01-02T15:04:05Z": true,
		"yesterday": false, "-5m": false, "10": false} {
		if err := CheckSince(since, false); (err == nil) != ok {
			t.Errorf("--since %q: %v", since, err)
		}
	}
	if err := CheckSince("10m", true); err == nil {
		t.Error("--since with --previous accepted")
	}
}
