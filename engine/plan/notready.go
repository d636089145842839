package plan

import (
	"github.com/ostset/ostset/health"
)

// NotReadyDetail says why a replica is not ready, as the runtime saw it
// (health.NotReady). Observe fills it (Replica.NotReady) only for replicas
// that are not ready.
type NotReadyDetail = health.NotReady

// Ready is the readiness rule (health.Ready) for an observed replica.
func (r Replica) Ready() bool {
	return health.Ready(hc(&r))
}

// Reason is the short form of why r is not ready, for a table: "exit 1, 3
// restarts", `health: "connection refused"`; "" when nothing is known.
func (r Replica) Reason() string {
	exit, out := r.notReadyParts()
	if out != "" {
		out = "health: " + out
	}
	return joinNonEmpty(exit, out)
}

// waitDetail is what a waiting message adds to the state it names ("restarting:
// exit 1, 3 restarts", `health: unhealthy: "connection refused"`).
func (r Replica) waitDetail() string {
	exit, out := r.notReadyParts()
	return joinNonEmpty(exit, out)
}

// notReadyParts is health.Why for r.
func (r Replica) notReadyParts() (exit, out string) { return health.Why(r.State, r.NotReady) }

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

// parenthesised is " (s)", or "" for an empty s.
func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
