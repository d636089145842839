package engine

import (
	"fmt"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
)

// OwnBinary is the ostset binary that a replica's healthcheck runs when it
// is ostset's own probe (a Kubernetes tcpSocket or httpGet readinessProbe):
// it is bind-mounted read-only at config.ProbePath. Its path on the host is
// not part of the revision: moving the binary rolls nothing.
type OwnBinary struct {
	Path string
	// Dynamic is set when the binary is dynamically linked (built with cgo):
	// in a replica it needs a C library that the image may not have.
	Dynamic bool
}

// mountProbe gives a replica whose healthcheck runs ostset's probe the
// binary to run. It is looked up at each create, so a daemon whose binary
// was replaced or moved mounts the one that is there now.
func (c *Controller) mountProbe(spec *plan.ReplicaSpec) error {
	if spec.Healthcheck == nil || !config.UsesProbe(spec.Healthcheck.Test) {
		return nil
	}
	if c.Binary == nil {
		return fmt.Errorf("%s: the healthcheck runs ostset's probe (%s), and this process has no ostset binary to mount there", spec.Name, config.ProbePath)
	}
	bin, err := c.Binary()
	if err != nil {
		return fmt.Errorf("%s: the healthcheck runs ostset's probe (%s): %w", spec.Name, config.ProbePath, err)
	}
	if bin.Dynamic {
		c.emit(spec.Set, spec.Name, "%s: warning: %s is dynamically linked (built with cgo); the probe runs it inside the replica, where it fails if the image lacks its C library: build ostset with CGO_ENABLED=0", spec.Name, bin.Path)
	}
	spec.Mounts = append(spec.Mounts, plan.Mount{Type: "bind", Source: bin.Path, Target: config.ProbePath, ReadOnly: true})
	return nil
}
