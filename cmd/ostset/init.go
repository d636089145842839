package main

import (
	"fmt"

	"github.com/ostset/ostset/engine/plan"
)

// initState is the STATE of an ordinal whose init containers run, as kubectl
// shows a pod's: Init:1/2 while they run, Init:ExitCode:N when one failed.
func initState(s plan.InitStatus) string {
	if s.State == plan.InitFailed {
		return fmt.Sprintf("Init:ExitCode:%d", s.ExitCode)
	}
	return fmt.Sprintf("Init:%d/%d", s.Succeeded, s.Total)
}

// initReason is the REASON column of an initializing ordinal: which init
// container failed, and how.
func initReason(s plan.InitStatus) string {
	if s.State == plan.InitFailed {
		return fmt.Sprintf("init %s: exit %d", s.Init, s.ExitCode)
	}
	return "-"
}
