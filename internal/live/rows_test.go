package live

import (
	"testing"

	"github.com/ostset/ostset/engine/plan"
)

func TestInitState(t *testing.T) {
	for _, tt := range []struct {
		s    plan.InitStatus
		want string
	}{
		{plan.InitStatus{State: plan.InitRunning, Succeeded: 0, Total: 2}, "Init:0/2"},
		{plan.InitStatus{State: plan.InitPending, Succeeded: 1, Total: 2}, "Init:1/2"},
		{plan.InitStatus{State: plan.InitSucceeded, Succeeded: 2, Total: 2}, "Init:2/2"},
		{plan.InitStatus{State: plan.InitFailed, ExitCode: 137, Total: 2}, "Init:ExitCode:137"},
	} {
		if got := initState(tt.s); got != tt.want {
			t.Errorf("initState(%+v) = %s, want %s", tt.s, got, tt.want)
		}
	}
}
