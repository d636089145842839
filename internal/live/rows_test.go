package live

import (
	"testing"

	"github.com/ostset/ostset/engine"
)

func TestInitState(t *testing.T) {
	for _, tt := range []struct {
		s    engine.InitStatus
		want string
	}{
		{engine.InitStatus{State: engine.InitRunning, Succeeded: 0, Total: 2}, "Init:0/2"},
		{engine.InitStatus{State: engine.InitPending, Succeeded: 1, Total: 2}, "Init:1/2"},
		{engine.InitStatus{State: engine.InitSucceeded, Succeeded: 2, Total: 2}, "Init:2/2"},
		{engine.InitStatus{State: engine.InitFailed, ExitCode: 137, Total: 2}, "Init:ExitCode:137"},
	} {
		if got := initState(tt.s); got != tt.want {
			t.Errorf("initState(%+v) = %s, want %s", tt.s, got, tt.want)
		}
	}
}
