package present

import (
	"testing"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

func TestRolloutLine(t *testing.T) {
	three := 3
	spec := config.Set{Name: "web", Replicas: &three, Template: config.Template{Image: "x"}}
	spec.ApplyDefaults()
	status := plan.Status{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 1, CurrentRevision: "web-a", UpdateRevision: "web-b"}
	cases := []struct {
		partition int
		complete  bool
		ready     int
		want      string
	}{
		{0, false, 2, "Waiting for 1 pods to be ready..."},
		{0, false, 3, "waiting for statefulset rolling update to complete 1 pods at revision web-b..."},
		{2, false, 3, "Waiting for partitioned roll out to finish: 1 out of 1 new pods have been updated..."},
		{2, true, 3, "partitioned roll out complete: 1 new pods have been updated..."},
		{0, true, 3, "statefulset rolling update complete 1 pods at revision web-b..."},
	}
	recreate := spec
	recreate.UpdateStrategy.Type = config.Recreate
	s := status
	s.Containers = []plan.ContainerStatus{{Revision: "web-a"}, {Revision: "web-b"}}
	if got, want := RolloutLine(recreate, false, plan.Plan{Status: s}), "Waiting for 1 pods of older revisions to be removed before revision web-b is created (Recreate)..."; got != want {
		t.Errorf("Recreate: %q, want %q", got, want)
	}
	for _, c := range cases {
		spec.UpdateStrategy.RollingUpdate.Partition = c.partition
		s := status
		s.ReadyReplicas = c.ready
		if got := RolloutLine(spec, false, plan.Plan{Status: s, Complete: c.complete}); got != c.want {
			t.Errorf("partition %d complete %v ready %d: %q, want %q", c.partition, c.complete, c.ready, got, c.want)
		}
	}
}
