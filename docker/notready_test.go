package docker

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"

	"github.com/ostset/ostset/engine/plan"
)

func TestNotReadyDetail(t *testing.T) {
	c := container.InspectResponse{RestartCount: 3, State: &container.State{
		Status: "running", Running: true, ExitCode: 0, OOMKilled: false,
		Health: &container.Health{Status: container.Unhealthy, Log: []*container.HealthcheckResult{
			{ExitCode: 0, Output: "ok"},
			{ExitCode: 1, Output: "dial tcp 127.0.0.1:8080: connect: connection refused\n"},
		}},
	}}
	want := &plan.NotReadyDetail{Restarts: 3, HealthOutput: "dial tcp 127.0.0.1:8080: connect: connection refused"}
	if got := notReadyDetail(c); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	c.State.Health.Log = append(c.State.Health.Log, &container.HealthcheckResult{ExitCode: 0, Output: "ok"})
	if got := notReadyDetail(c); got.HealthOutput != "" {
		t.Errorf("a passing last probe reported as %q", got.HealthOutput)
	}
	c.State.Health.Log = append(c.State.Health.Log, &container.HealthcheckResult{ExitCode: -1})
	if got := notReadyDetail(c); got.HealthOutput != "exit -1, no output" {
		t.Errorf("a silent failing probe reported as %q", got.HealthOutput)
	}
	crashed := container.InspectResponse{State: &container.State{Status: "restarting", Restarting: true, ExitCode: 137, OOMKilled: true, Error: "oops"}}
	if got := notReadyDetail(crashed); !reflect.DeepEqual(got, &plan.NotReadyDetail{ExitCode: 137, OOMKilled: true, Error: "oops"}) {
		t.Errorf("crashed: %+v", got)
	}
}

func TestLogLines(t *testing.T) {
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, "line %d\r\n\n", i)
	}
	b.WriteString(strings.Repeat("é", 400))
	got := logLines(b.String())
	if len(got) != notReadyLogLines || got[0] != "line 5" || got[8] != "line 13" {
		t.Errorf("lines %q", got)
	}
	if last := got[9]; len([]rune(last)) != maxReasonLine || !strings.HasSuffix(last, "é…") {
		t.Errorf("long line cut to %d runes: ...%q", len([]rune(last)), last[len(last)-8:])
	}
	if got := logLines(""); len(got) != 0 {
		t.Errorf("no logs gave %q", got)
	}
}
