package engine

import (
	"errors"
	"testing"

	"github.com/ostset/ostset/config"
)

func TestPullNeeded(t *testing.T) {
	for _, tt := range []struct {
		policy  string
		present bool
		pull    bool
		err     error
	}{
		{config.PullIfNotPresent, true, false, nil},
		{config.PullIfNotPresent, false, true, nil},
		{"", true, false, nil},
		{"", false, true, nil},
		{config.PullAlways, true, true, nil},
		{config.PullAlways, false, true, nil},
		{config.PullNever, true, false, nil},
		{config.PullNever, false, false, ErrNeverPull},
	} {
		pull, err := PullNeeded(tt.policy, tt.present)
		if pull != tt.pull || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("PullNeeded(%q, present=%v) = %v, %v; want %v, %v", tt.policy, tt.present, pull, err, tt.pull, tt.err)
		}
	}
	if _, err := PullNeeded("always", true); err == nil {
		t.Error("an unknown policy was accepted")
	}
}
